import { relative } from "@std/path";
import { ToolError } from "../../../core/tool_error.ts";
import type { ResolvedContext } from "../builtin_context.ts";
import { quote, toFsToolError } from "../paths/fs_tool_error.ts";
import { resolveReadPath } from "../paths/workspace_paths.ts";

/** Where a search runs: a folder or a file under one allowed root, after the path checks. */
export interface SearchTarget {
  /** The declared root containing it (the workspace or a read-only root): the walk's root. */
  readonly root: string;
  /** The folder or file, relative to `root` ("" for the root itself). */
  readonly start: string;
  /** Whether `start` is a folder or a regular file. */
  readonly kind: "dir" | "file";
  /**
   * The path of a result: relative to the workspace, or absolute in a read-only root.
   *
   * @param path A path relative to `root`.
   * @returns The path to show.
   */
  display(path: string): string;
}

/**
 * Checks the `path` of a search like `read_file` does (inside the workspace or a read-only root,
 * as written and after following symbolic links) and says whether it is a folder or a file.
 * Throws a `ToolError`: `permission_denied` outside the roots, `tool_error` when it does not exist
 * or is neither a folder nor a regular file (or not a folder when `folderOnly`).
 *
 * Synchronous, as the path checks before it are: an asynchronous `stat` waited on the thread pool
 * longer than the rest of a small search took.
 *
 * @param path The path as the model gave it; absent or empty means the workspace.
 * @param options `folderOnly`: refuse a file.
 * @returns The search target.
 */
export function resolveSearchTarget(
  ctx: ResolvedContext,
  path: string | undefined,
  options: { folderOnly?: boolean } = {},
): SearchTarget {
  const shown = path === undefined || path === "" ? "." : path;
  const target = resolveReadPath(ctx, shown);
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(target.real);
  } catch (error) {
    throw toFsToolError(error, { access: "read", shown, root: target.root });
  }
  if (!info.isDirectory && !(info.isFile && options.folderOnly !== true)) {
    throw new ToolError(
      "tool_error",
      `Cannot search ${quote(shown)}: it is ${
        info.isFile ? "a file; give the folder to search in" : "neither a folder nor a file"
      }`,
    );
  }
  const root = target.root;
  const inWorkspace = root === ctx.workspace;
  return {
    root,
    start: relative(root, target.real),
    kind: info.isDirectory ? "dir" : "file",
    display: (rel) => inWorkspace ? rel || "." : rel === "" ? root : `${root}/${rel}`,
  };
}

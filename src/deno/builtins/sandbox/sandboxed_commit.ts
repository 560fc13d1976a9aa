import { dirname } from "@std/path";
import type { ResolvedContext } from "../builtin_context.ts";
import { runInFileSandbox, sandboxSystemError } from "./file_sandbox.ts";
import { toFsToolError } from "../paths/fs_tool_error.ts";
import { SANDBOXED_COMMIT_SCRIPT } from "./sandboxed_commit_script.ts";
import type { FileIdentity } from "../files/staged_commit.ts";
import { lstatOrUndefined, tempPathFor } from "../files/staged_file.ts";
import type { ResolvedPath } from "../paths/workspace_paths.ts";

/** The planned final state of one file, committed inside the file sandbox. */
export interface SandboxedFile {
  /** The checked path. */
  readonly path: ResolvedPath;
  /** The new content (after the old one when `append`), or `null` to delete the file. */
  readonly content: Uint8Array | null;
  /** Keep the old content and add `content` after it (the file must exist). */
  readonly append?: boolean;
  /** Whether a file existed when it was checked (it is kept as a backup until the end). */
  readonly existed: boolean;
  /** Device and inode of the file that was read: the file replaced must still be that one. */
  readonly identity?: FileIdentity;
  /** Permission bits to give the new file. */
  readonly mode?: number;
}

/**
 * Commits file changes all or nothing inside a bubblewrap sandbox that shows only what the
 * sandboxed bash tool sees (one `bwrap` start for all files): every new content is staged in a
 * temporary file in its target's directory (missing parents created), then each is renamed into
 * place, keeping a backup of each replaced file until all succeeded; on failure everything is
 * restored. A symlink swapped into the workspace meanwhile cannot lead outside it, because outside
 * paths do not exist in the sandbox. Throws a `ToolError` naming the file that failed.
 *
 * Requires `allow-run` permission for `bwrap`.
 *
 * @tags allow-run
 * @param ctx The request's context (bash sandboxed).
 * @param files The files to change, in order.
 * @param signal Stops before anything on disk changes.
 */
export async function commitInSandbox(
  ctx: ResolvedContext,
  files: readonly SandboxedFile[],
  signal?: AbortSignal,
): Promise<void> {
  const args: string[] = [];
  const input: Uint8Array[] = [];
  for (const file of files) {
    const target = file.path.real;
    const kind = file.content === null ? "delete" : file.append ? "append" : "write";
    const identity = !file.existed
      ? "-"
      : file.identity === undefined || file.identity.ino === null
      ? "any"
      : `${file.identity.dev}:${file.identity.ino}`;
    const mode = file.mode === undefined ? "-" : (file.mode & 0o777).toString(8);
    const dirs = file.content === null ? [] : await missingParents(dirname(target));
    const bytes = file.content ?? new Uint8Array();
    args.push(target, kind, identity, mode, String(bytes.length), tempPathFor(target));
    args.push(tempPathFor(target), String(dirs.length), ...dirs);
    input.push(bytes);
  }
  signal?.throwIfAborted();
  const run = await runInFileSandbox(ctx, SANDBOXED_COMMIT_SCRIPT, args, input);
  if (run.code === 0) return;
  const failed = /^fail (\d+) (\w+)$/m.exec(run.stdout);
  const file = files[Number(failed?.[1] ?? 0)];
  const operation = { access: "write", shown: file.path.display, root: file.path.root } as const;
  if (failed?.[2] === "read") {
    throw toFsToolError(sandboxSystemError(run.stderr), { ...operation, access: "read" });
  }
  if (failed?.[2] === "changed") {
    throw toFsToolError(
      new Deno.errors.NotFound("The file changed on disk while it was being replaced"),
      operation,
    );
  }
  throw toFsToolError(sandboxSystemError(run.stderr), operation);
}

/** The parents of `dir` that do not exist yet, outermost first (the sandbox checks again). */
async function missingParents(dir: string): Promise<string[]> {
  const missing: string[] = [];
  for (let at = dir; (await lstatOrUndefined(at)) === undefined; at = dirname(at)) {
    missing.unshift(at);
    if (dirname(at) === at) break;
  }
  return missing;
}

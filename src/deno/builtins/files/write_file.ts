import { z } from "zod";
import { ToolError } from "../../../core/tool_error.ts";
import type { RoutedTool } from "../../../core/tool_source.ts";
import { compileZodInput } from "../../../core/parse_arguments.ts";
import type { ResolvedContext } from "../builtin_context.ts";
import { concat } from "@std/bytes";
import { quote, toFsToolError } from "../paths/fs_tool_error.ts";
import { type FileAccess, type FileStat, keptPermissions, type PutResult } from "./file_access.ts";
import { readCurrentBytes } from "./current_text.ts";
import { commit } from "./staged_commit.ts";
import { putFile } from "./put_file.ts";
import { type ResolvedPath, resolveWritePath } from "../paths/workspace_paths.ts";
import { pathSubjects } from "../paths/path_subjects.ts";
import { protectedList, WRITE_ANNOTATIONS } from "./write_tool_hints.ts";

const schema = z.object({
  path: z.string().describe("The file, relative to the workspace"),
  content: z.string().describe("The text to write"),
  mode: z.enum(["create", "overwrite", "append"]).optional().describe(
    "create: fail if the file exists; overwrite (default): replace or create; append: add at the end",
  ),
});
type WriteFileArgs = z.infer<typeof schema>;
const input = compileZodInput(schema, "write_file");

/** What `write_file` returns, JSON-encoded. */
export interface WriteFileResult {
  /** The path, relative to the workspace. */
  path: string;
  /** The mode used. */
  mode: "create" | "overwrite" | "append";
  /** Whether the file did not exist before. */
  created: boolean;
  /** The number of bytes of `content` written (UTF-8). */
  bytesWritten: number;
}

/**
 * Creates the `write_file` tool bound to one context: writes a text file inside the workspace,
 * outside its protected paths, atomically (a temporary file in the same directory, then a
 * rename), creating parent directories only after every check passed.
 *
 * Requires `allow-read` and `allow-write` permission for the workspace.
 *
 * @tags allow-read, allow-write
 */
export function createWriteFileTool(ctx: ResolvedContext, files: FileAccess): RoutedTool {
  return Object.freeze({
    name: "write_file",
    description: "Writes a text file in the workspace, atomically. mode: create (fail if it " +
      "exists), overwrite (default; replace or create) or append. Parent directories are " +
      `created. Paths are relative to the workspace; ${
        protectedList(ctx.protectedPaths)
      } cannot be written. Returns JSON { path, mode, created, bytesWritten }.`,
    inputSchema: input.jsonSchema,
    annotations: WRITE_ANNOTATIONS,
    source: "builtin" as const,
    origin: "write_file",
    policySubjects: pathSubjects,
    execute: (args: Record<string, unknown>) =>
      writeFile(ctx, files, input.parse(args, "write_file") as WriteFileArgs),
  });
}

async function writeFile(
  ctx: ResolvedContext,
  files: FileAccess,
  args: WriteFileArgs,
): Promise<WriteFileResult> {
  const mode = args.mode ?? "overwrite";
  const target = resolveWritePath(ctx, args.path);
  const operation = { access: "write", shown: args.path, root: target.root } as const;
  const added = new TextEncoder().encode(args.content);
  try {
    // Created or replaced as a whole: the look at the target, its checks and the write are one
    // step (one round trip in a sandbox session); a replaced file keeps its permission bits.
    const outcome = mode === "append"
      ? await append(files, target, args.path, added)
      : await putFile(files, target, {
        data: added,
        shown: target.display,
        expect: mode === "create" ? "absent" : "file-or-absent",
      });
    if (!outcome.written) refuse(args.path, outcome.before);
    return {
      path: target.display,
      mode,
      created: outcome.before === undefined,
      bytesWritten: added.length,
    };
  } catch (error) {
    throw toFsToolError(error, operation);
  }
}

/** Appends: the old bytes are read first (then the file is replaced as a whole, as by patches). */
async function append(
  files: FileAccess,
  target: ResolvedPath,
  shown: string,
  added: Uint8Array,
): Promise<PutResult> {
  const existing = await files.lstat(target.real);
  if (existing !== undefined && !existing.isFile) return { written: false, before: existing };
  let content: Uint8Array = added;
  let identity;
  if (existing !== undefined) {
    const old = await readCurrentBytes(files, target, { shown });
    content = concat([old.bytes, added]);
    identity = old.identity;
  }
  // Only whether a file existed matters to the commit, not its text.
  await commit(files, [{
    path: target,
    onDisk: existing === undefined ? null : "",
    // Permission bits only: a replaced file never keeps setuid, setgid or sticky bits.
    mode: keptPermissions(existing),
    identity,
    content,
  }]);
  return { written: true, before: existing };
}

/** Throws the refusal for a target that is not a regular file, or exists in mode "create". */
function refuse(shown: string, before: FileStat | undefined): never {
  if (before !== undefined && !before.isFile) {
    throw new ToolError(
      "tool_error",
      `Cannot write ${quote(shown)}: it exists and is not a regular file`,
    );
  }
  throw new ToolError(
    "tool_error",
    `File ${quote(shown)} already exists: use mode "overwrite" to replace it or "append"`,
  );
}

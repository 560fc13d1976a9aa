import { z } from "zod";
import { ToolError } from "../../../core/tool_error.ts";
import type { RoutedTool, ToolContext } from "../../../core/tool_source.ts";
import { compileZodInput } from "../../../core/zod_input.ts";
import type { ResolvedContext } from "../builtin_context.ts";
import { quote, toFsToolError } from "../paths/fs_tool_error.ts";
import type { FileAccess, FileStat } from "./file_access.ts";
import { type LinesRead, readLines } from "./read_lines.ts";
import { resolveReadPath } from "../paths/workspace_paths.ts";
import { pathSubjects } from "../paths/path_subjects.ts";

const schema = z.object({
  path: z.string().describe("The file, relative to the workspace (or absolute inside a root)"),
  startLine: z.number().int().min(1).optional().describe("First line to return, 1-based"),
  endLine: z.number().int().min(1).optional().describe("Last line to return, inclusive"),
  maxChars: z.number().int().min(1).optional().describe("Most characters to return"),
});
type ReadFileArgs = z.infer<typeof schema>;
const input = compileZodInput(schema, "read_file");

/** What `read_file` returns, JSON-encoded. */
export interface ReadFileResult {
  /** The path, relative to the workspace when inside it. */
  path: string;
  /** The text of the lines, with their own line endings. */
  content: string;
  /** The first line returned, 1-based. */
  startLine: number;
  /** The last line returned. */
  endLine: number;
  /** The file's number of lines, when it was read to the end. */
  totalLines?: number;
  /** Whether the character limit cut the range short: continue at `endLine + 1`. */
  truncated: boolean;
}

/**
 * Creates the `read_file` tool bound to one context: reads a range of lines of a text file in
 * the workspace or a read-only root, streaming, at most `readMaxChars` characters per call.
 *
 * Requires `allow-read` permission for the workspace and the read-only roots.
 *
 * @tags allow-read
 */
export function createReadFileTool(ctx: ResolvedContext, files: FileAccess): RoutedTool {
  return Object.freeze({
    name: "read_file",
    description:
      `Reads lines of a text file in the workspace${
        ctx.readOnlyRoots.length > 0 ? " or a read-only root" : ""
      }. Returns JSON { path, content, startLine, endLine, totalLines?, truncated }. ` +
      `At most ${ctx.readMaxChars} characters per call; when truncated is true, call again ` +
      `with startLine = endLine + 1. Paths are relative to the workspace.`,
    inputSchema: input.jsonSchema,
    annotations: Object.freeze({ readOnlyHint: true, openWorldHint: false }),
    source: "builtin" as const,
    origin: "read_file",
    policySubjects: pathSubjects,
    execute: (args: Record<string, unknown>, context: ToolContext) =>
      readFile(ctx, files, input.parse(args, "read_file") as ReadFileArgs, context.signal),
  });
}

async function readFile(
  ctx: ResolvedContext,
  files: FileAccess,
  args: ReadFileArgs,
  signal: AbortSignal,
): Promise<ReadFileResult> {
  const startLine = args.startLine ?? 1;
  if (args.endLine !== undefined && args.endLine < startLine) {
    throw new ToolError(
      "invalid_arguments",
      `"endLine" (${args.endLine}) must not be less than "startLine" (${startLine})`,
    );
  }
  const target = await resolveReadPath(ctx, args.path);
  const operation = { access: "read", shown: args.path, root: target.root } as const;
  try {
    const range = {
      startLine,
      endLine: args.endLine,
      maxChars: Math.min(args.maxChars ?? ctx.readMaxChars, ctx.readMaxChars),
      signal,
    };
    const { info, file } = await files.open(target, args.path);
    if (file === undefined) throw notRegular(info, args.path);
    let read: LinesRead;
    try {
      read = await readLines(file, { size: file.info.size, range });
    } catch (error) {
      await file.close().catch(() => {});
      throw error;
    }
    await file.close();
    if (read.binary) {
      throw new ToolError(
        "tool_error",
        `File ${quote(args.path)} is not a text file (it contains NUL bytes)`,
      );
    }
    if (read.totalLines !== undefined && startLine > Math.max(read.totalLines, 1)) {
      throw new ToolError(
        "invalid_arguments",
        `"startLine" ${startLine} is past the end of ${
          quote(args.path)
        }, which has ${read.totalLines} lines`,
      );
    }
    return {
      path: target.display,
      content: read.content,
      startLine,
      endLine: read.endLine,
      truncated: read.truncated,
      ...(read.totalLines === undefined ? {} : { totalLines: read.totalLines }),
    };
  } catch (error) {
    throw toFsToolError(error, operation);
  }
}

function notRegular(info: FileStat, shown: string): ToolError {
  const kind = info.isDirectory
    ? "a directory; list it with bash (ls) instead"
    : info.isFifo
    ? "a FIFO (named pipe)"
    : info.isDevice
    ? "a device"
    : info.isSocket
    ? "a socket"
    : "not a regular file";
  return new ToolError("tool_error", `Cannot read ${quote(shown)}: it is ${kind}`);
}

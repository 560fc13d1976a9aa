import { z } from "zod";
import { ToolError } from "../../../core/tool_error.ts";
import type { RoutedTool, ToolContext } from "../../../core/tool_source.ts";
import { compileZodInput } from "../../../core/zod_input.ts";
import type { ResolvedContext } from "../builtin_context.ts";
import { usesFileSandbox } from "../sandbox/file_sandbox.ts";
import { quote, toFsToolError } from "../paths/fs_tool_error.ts";
import { checkOpenedFile } from "../paths/opened_file_check.ts";
import { type LineRange, type LinesRead, readLines } from "./read_lines.ts";
import { SandboxedReader } from "../sandbox/sandboxed_read.ts";
import { type ResolvedPath, resolveReadPath } from "../paths/workspace_paths.ts";

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
 * @param ctx The resolved context.
 * @returns The tool.
 */
export function createReadFileTool(ctx: ResolvedContext): RoutedTool {
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
    execute: (args: Record<string, unknown>, context: ToolContext) =>
      readFile(ctx, input.parse(args, "read_file") as ReadFileArgs, context.signal),
  });
}

async function readFile(
  ctx: ResolvedContext,
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
    // Checked before opening: opening a FIFO would block.
    const info = await Deno.stat(target.real);
    checkKind(info, args.path);
    const range = {
      startLine,
      endLine: args.endLine,
      maxChars: Math.min(args.maxChars ?? ctx.readMaxChars, ctx.readMaxChars),
      signal,
    };
    const read = usesFileSandbox(ctx)
      ? await readInSandbox(ctx, target, info.size, range, args.path)
      : await readOpened(ctx, target, info, range, args.path);
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
    const result: ReadFileResult = {
      path: target.display,
      content: read.content,
      startLine,
      endLine: read.endLine,
      truncated: read.truncated,
    };
    if (read.totalLines !== undefined) result.totalLines = read.totalLines;
    return result;
  } catch (error) {
    throw toFsToolError(error, operation);
  }
}

async function readOpened(
  ctx: ResolvedContext,
  target: ResolvedPath,
  info: Deno.FileInfo,
  range: LineRange,
  shown: string,
): Promise<LinesRead> {
  using file = await Deno.open(target.real, { read: true });
  const opened = await checkOpenedFile(ctx, file, target, shown);
  if (opened !== undefined) checkKind(opened, shown);
  const read = await readLines(file, opened?.size ?? info.size, range);
  // Checking again after reading makes a racing swap win twice in a row to leak anything.
  if (opened !== undefined) await checkOpenedFile(ctx, file, target, shown);
  return read;
}

/** With bash sandboxed, a command could race the checks: read inside the sandbox instead. */
async function readInSandbox(
  ctx: ResolvedContext,
  target: ResolvedPath,
  size: number,
  range: LineRange,
  shown: string,
): Promise<LinesRead> {
  const reader = await SandboxedReader.open(ctx, target);
  let read: LinesRead;
  try {
    read = await readLines(reader, size, range);
  } catch (error) {
    await reader.finish(shown, target.root).catch(() => {});
    throw error;
  }
  await reader.finish(shown, target.root);
  return read;
}

function checkKind(info: Deno.FileInfo, shown: string): void {
  if (info.isFile) return;
  const kind = info.isDirectory
    ? "a directory; list it with bash (ls) instead"
    : info.isFifo
    ? "a FIFO (named pipe)"
    : info.isCharDevice || info.isBlockDevice
    ? "a device"
    : info.isSocket
    ? "a socket"
    : "not a regular file";
  throw new ToolError("tool_error", `Cannot read ${quote(shown)}: it is ${kind}`);
}

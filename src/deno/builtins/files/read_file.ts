import { z } from "zod";
import { ToolError } from "../../../core/tool_error.ts";
import type { RoutedTool, ToolContext } from "../../../core/tool_source.ts";
import { compileZodInput } from "../../../core/parse_arguments.ts";
import type { ResolvedContext } from "../builtin_context.ts";
import { quote, toFsToolError } from "../paths/fs_tool_error.ts";
import type { ByteSource, FileAccess, FileStat } from "./file_access.ts";
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
  const target = resolveReadPath(ctx, args.path);
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

/** Which lines to read, and how much text at most. */
export interface LineRange {
  /** The first line, 1-based. */
  readonly startLine: number;
  /** The last line, inclusive; `undefined` reads until `maxChars`. */
  readonly endLine?: number;
  /** Most characters of content. */
  readonly maxChars: number;
  /** Stops reading when it aborts. */
  readonly signal?: AbortSignal;
}

/** The lines read. */
export interface LinesRead {
  /** The text of the lines, with their own line endings. */
  content: string;
  /** The last line returned (`startLine - 1` when nothing was returned). */
  endLine: number;
  /** The number of lines of the file, when the whole file was seen. */
  totalLines?: number;
  /** Whether `maxChars` cut the content short of the range. */
  truncated: boolean;
  /** Whether a NUL byte was seen up to the end of the range: the file is not text. */
  binary: boolean;
}

const CHUNK_BYTES = 64 * 1024;
/** The smallest read buffer, for empty and tiny files. */
const MIN_BUFFER_BYTES = 1024;
/** For files of at most this size, the lines after the range are counted. */
const COUNT_ALL_BYTES = 4 * 1024 * 1024;

/**
 * Reads a range of lines from an open file, streaming: it reads only up to the end of the range
 * (files of at most 4 MiB are scanned to the end to count their lines), so the first lines of a
 * huge file cost one chunk and memory stays bounded even for a file without line breaks.
 *
 * @param file The open file (or another source of its bytes), at offset 0.
 * @param options The file's `size` in bytes, and the `range`: the lines and the character limit.
 * @returns The content and what was seen.
 */
export async function readLines(
  file: ByteSource,
  options: { size: number; range: LineRange },
): Promise<LinesRead> {
  const { size, range } = options;
  const { startLine, endLine = Infinity, maxChars, signal } = range;
  const countAll = size <= COUNT_ALL_BYTES;
  const parts: string[] = [];
  let length = 0;
  let last = startLine - 1;
  let current = "";
  let line = 1;
  let open = false; // whether the line `line` has text already
  let truncated = false;
  let stopped = false;
  // One await per chunk, not per line: the lines of a chunk are handled in one synchronous loop.
  const scanned = { bytes: 0 };
  reading: for await (const batch of segments(file, { size, scanned, signal })) {
    for (const segment of batch) {
      if (line > endLine || truncated) {
        // A file that grew past the counted size while read (a command appending to it) is
        // not scanned on: it could grow faster than it is read, and the read would never end.
        if (!countAll || scanned.bytes > COUNT_ALL_BYTES) {
          stopped = true;
          break reading;
        }
      } else {
        if (segment.text.includes("\0")) {
          return { content: "", endLine: startLine - 1, truncated: false, binary: true };
        }
        if (line >= startLine) {
          current += segment.text;
          if (length + current.length > maxChars) {
            truncated = true;
            if (parts.length === 0) { // the first line alone is too long: return its head
              parts.push(current.slice(0, maxChars));
              last = line;
            }
            current = "";
          } else if (segment.end) {
            parts.push(current);
            length += current.length;
            current = "";
            last = line;
          }
        }
      }
      open = !segment.end;
      if (segment.end) line++;
    }
  }
  if (current.length > 0) { // the last line, without a line break
    parts.push(current);
    last = line;
  }
  const read: LinesRead = { content: parts.join(""), endLine: last, truncated, binary: false };
  if (!stopped) read.totalLines = open ? line : line - 1;
  return read;
}

interface Segment {
  /** Text of one line, or of a part of a very long line. */
  text: string;
  /** Whether the text ends the line (with its `\n`). */
  end: boolean;
}

/**
 * The buffer for a file of `size` bytes: the whole file and a byte more (so a file that grew
 * since it was measured is noticed), at most a chunk. A small file then costs a small
 * allocation, not a zeroed 64 KiB one per call; a file that grew is still read to its end.
 */
function bufferBytes(size: number): number {
  if (!Number.isSafeInteger(size) || size < 0) return CHUNK_BYTES; // a size nobody measured
  return Math.min(CHUNK_BYTES, Math.max(MIN_BUFFER_BYTES, size + 1));
}

/**
 * The segments of each chunk read, one batch per chunk. A short read that brings the bytes read
 * to exactly the measured size ends the file, as Node's `readFile` does: the read that would
 * only confirm the end is skipped (a file that grew is still read on; one read at the measured
 * size is as of the moment it was measured).
 */
async function* segments(
  file: ByteSource,
  options: { size: number; scanned: { bytes: number }; signal?: AbortSignal },
): AsyncGenerator<Segment[]> {
  const { size, scanned, signal } = options;
  const decoder = new TextDecoder();
  const buffer = new Uint8Array(bufferBytes(size));
  let pending = "";
  let total = 0;
  while (true) {
    signal?.throwIfAborted();
    const read = await file.read(buffer);
    if (read !== null) total += read;
    scanned.bytes = total;
    const atEnd = read === null || (read < buffer.length && total === size);
    const text = pending +
      (read === null ? decoder.decode() : decoder.decode(buffer.subarray(0, read), {
        stream: !atEnd,
      }));
    const batch: Segment[] = [];
    let from = 0;
    for (let newline = text.indexOf("\n"); newline !== -1; newline = text.indexOf("\n", from)) {
      batch.push({ text: text.slice(from, newline + 1), end: true });
      from = newline + 1;
    }
    pending = text.slice(from);
    if (atEnd) {
      if (pending.length > 0) batch.push({ text: pending, end: false });
      yield batch;
      return;
    }
    if (pending.length >= CHUNK_BYTES) {
      batch.push({ text: pending, end: false });
      pending = "";
    }
    yield batch;
  }
}

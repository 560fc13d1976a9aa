import { ToolError } from "../../../core/tool_error.ts";
import type { ResolvedContext } from "../builtin_context.ts";
import { usesFileSandbox } from "../sandbox/file_sandbox.ts";
import { quote, toFsToolError } from "../paths/fs_tool_error.ts";
import { checkOpenedFile } from "../paths/opened_file_check.ts";
import type { ByteSource } from "./read_lines.ts";
import { SandboxedReader } from "../sandbox/sandboxed_read.ts";
import type { FileIdentity } from "./staged_commit.ts";
import { lstatOrUndefined } from "./staged_file.ts";
import type { ResolvedPath } from "../paths/workspace_paths.ts";

/**
 * The largest file a patch edits (16 MiB). Editing reads the whole file into memory, so a larger
 * one (say a sparse file of many gigabytes made with `truncate`) is refused instead of exhausting
 * the host's memory.
 */
export const MAX_EDIT_BYTES = 16 * 1024 * 1024;

/** A text file as read for a patch: its text, permission bits and identity. */
export interface CurrentText {
  /** The decoded text. */
  text: string;
  /** The permission bits. */
  mode?: number;
  /** Device and inode, to notice a swap before the file is replaced. */
  identity: FileIdentity;
}

/**
 * Reads the current text of a checked path for a patch, through the file that was opened and
 * checked (so a swapped symlink cannot feed it an outside file). Returns `undefined` when the
 * file does not exist; throws a `ToolError` for a file that is not a regular text file.
 *
 * @param ctx The request's context.
 * @param path The checked path.
 * @param shown The path as the patch names it.
 * @returns The text, or `undefined`.
 */
export async function readCurrent(
  ctx: ResolvedContext,
  path: ResolvedPath,
  shown: string,
): Promise<CurrentText | undefined> {
  let opened: Deno.FileInfo;
  let bytes: Uint8Array;
  try {
    const info = await lstatOrUndefined(path.real);
    if (info === undefined) return undefined;
    if (!info.isFile) throw notText(shown, "it is not a regular file");
    if (usesFileSandbox(ctx)) {
      ({ opened, bytes } = await readInSandbox(ctx, path, shown, info));
    } else {
      using file = await Deno.open(path.real, { read: true });
      // The file that was opened must be the checked one (a swapped symlink could lead outside).
      opened = await checkOpenedFile(ctx, file, path, shown) ?? info;
      if (!opened.isFile) throw notText(shown, "it is not a regular file");
      if (opened.size > MAX_EDIT_BYTES) throw tooLarge(shown, opened.size);
      bytes = await readAll(file, shown);
      if (opened !== info) await checkOpenedFile(ctx, file, path, shown); // again, after reading
    }
  } catch (error) {
    throw toFsToolError(error, { access: "read", shown, root: path.root });
  }
  if (bytes.includes(0)) throw notText(shown, "it is not a text file (it contains NUL bytes)");
  return {
    text: new TextDecoder().decode(bytes),
    mode: opened.mode ?? undefined,
    identity: { dev: opened.dev, ino: opened.ino },
  };
}

/** With bash sandboxed, a command could race the checks: read inside the sandbox instead. */
async function readInSandbox(
  ctx: ResolvedContext,
  path: ResolvedPath,
  shown: string,
  info: Deno.FileInfo,
): Promise<{ opened: Deno.FileInfo; bytes: Uint8Array }> {
  if (info.size > MAX_EDIT_BYTES) throw tooLarge(shown, info.size);
  const reader = await SandboxedReader.open(ctx, path, true);
  let bytes: Uint8Array;
  try {
    bytes = await readAll(reader, shown);
  } catch (error) {
    await reader.finish(shown, path.root).catch(() => {});
    throw error;
  }
  await reader.finish(shown, path.root);
  const identity = reader.identity;
  if (identity === undefined) throw notText(shown, "it could not be read");
  return { opened: { ...info, ...identity }, bytes };
}

async function readAll(file: ByteSource, shown: string): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (let buffer = new Uint8Array(64 * 1024);; buffer = new Uint8Array(64 * 1024)) {
    const read = await file.read(buffer);
    if (read === null) break;
    chunks.push(buffer.subarray(0, read));
    length += read;
    // The file may grow while it is read.
    if (length > MAX_EDIT_BYTES) throw tooLarge(shown, length);
  }
  const all = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.length;
  }
  return all;
}

function tooLarge(path: string, size: number): ToolError {
  return notText(
    path,
    `it is ${size} bytes, over the ${MAX_EDIT_BYTES}-byte limit of files a patch edits; ` +
      "use bash to change large files",
  );
}

function notText(path: string, problem: string): ToolError {
  return new ToolError(
    "tool_error",
    `Patch failed on ${quote(path)}: ${problem}. Nothing was changed`,
  );
}

import { ToolError } from "../../../core/tool_error.ts";
import { concat } from "@std/bytes";
import { quote, toFsToolError } from "../paths/fs_tool_error.ts";
import type { FileAccess } from "./file_access.ts";
import type { ByteSource } from "./file_access.ts";
import type { FileIdentity } from "./staged_commit.ts";
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
 * @param options The path as the patch names it (`shown`).
 * @returns The text, or `undefined`.
 */
export async function readCurrent(
  files: FileAccess,
  path: ResolvedPath,
  options: { shown: string },
): Promise<CurrentText | undefined> {
  const { shown } = options;
  let current: { bytes: Uint8Array; mode?: number; identity: FileIdentity };
  try {
    current = await readCurrentBytes(files, path, { shown });
  } catch (error) {
    // A missing file is not an error: the patch may add it.
    if (error instanceof ToolError && error.cause instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
  const { bytes, mode, identity } = current;
  if (bytes.includes(0)) throw notText(shown, "it is not a text file (it contains NUL bytes)");
  return { text: new TextDecoder().decode(bytes), mode, identity };
}

/**
 * Reads the bytes of an existing regular file (at most {@linkcode MAX_EDIT_BYTES}) through the
 * file that was opened and checked, with its permission bits and identity.
 *
 * @param options The path as the model gave it (`shown`).
 * @returns The bytes, permission bits and identity.
 */
export async function readCurrentBytes(
  files: FileAccess,
  path: ResolvedPath,
  options: { shown: string },
): Promise<{ bytes: Uint8Array; mode?: number; identity: FileIdentity }> {
  const { shown } = options;
  let info;
  let bytes: Uint8Array;
  try {
    const opened = await files.open(path, shown);
    if (opened.file === undefined) throw notText(shown, "it is not a regular file");
    info = opened.file.info;
    try {
      if (info.size > MAX_EDIT_BYTES) throw tooLarge(shown, info.size);
      bytes = await readAll(opened.file, shown);
    } catch (error) {
      await opened.file.close().catch(() => {});
      throw error;
    }
    await opened.file.close();
  } catch (error) {
    throw toFsToolError(error, { access: "read", shown, root: path.root });
  }
  return { bytes, mode: info.mode ?? undefined, identity: { dev: info.dev, ino: info.ino } };
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
  return concat(chunks);
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

import type { DirEntry, FileInfo, PutExpectation } from "../../sandbox/protocol.ts";
import type { ResolvedPath } from "../paths/workspace_paths.ts";

export type { PutExpectation };

/**
 * What the file tools learn of a file (the fields of `Deno.FileInfo` they use, as the sandbox's
 * supervisor answers them too): `isSymlink` only from `lstat`, `isDevice` for a character or
 * block device, `mode` (type and permission bits) and `ino` `null` where the platform has none.
 */
export type FileStat = Readonly<FileInfo>;

/** Something to read bytes from, like `Deno.FsFile`. */
export interface ByteSource {
  /** Reads into `buffer`; resolves to the number of bytes, or `null` at the end. */
  read(buffer: Uint8Array): Promise<number | null>;
}

/** A regular file opened for reading; `close` it (which may throw what went wrong). */
export interface OpenedFile extends ByteSource {
  /** The open file's information. */
  readonly info: FileStat;
  /** Closes it, after checking (on the host) that it still is the file the path leads to. */
  close(): Promise<void>;
}

/** A directory entry. */
export type FileEntry = Readonly<DirEntry>;

/** How `FileAccess.stage` writes a new file. */
export interface StageOptions {
  /** Permission bits of the new file (default: the process's default). */
  readonly mode?: number;
  /** The path as the model wrote it (for messages). */
  readonly shown: string;
}

/** How `FileAccess.put` writes a file. */
export interface PutOptions extends StageOptions {
  /** Device and inode the target must still have (the file that was read). */
  readonly identity?: { readonly dev: number; readonly ino: number | null };
  /**
   * Looks at the target first (`lstat`) and writes nothing when it does not meet this; a
   * regular file replaced without `mode` passes its permission bits on (never setuid, setgid or
   * sticky).
   */
  readonly expect?: PutExpectation;
}

/** What `FileAccess.put` did. */
export interface PutResult {
  /** Whether the new file is in place (`false`: the target did not meet `expect`). */
  readonly written: boolean;
  /** What the target was before, when `expect` asked to look (`undefined`: nothing there). */
  readonly before?: FileStat;
}

/**
 * Whether a target as found meets a `put` expectation.
 *
 * @param expect What `put` was asked to require.
 * @param before What the target was (`undefined`: nothing there).
 * @returns `true` when `put` may write.
 */
export function meetsExpectation(expect: PutExpectation, before: FileStat | undefined): boolean {
  return before === undefined || (expect === "file-or-absent" && before.isFile);
}

/**
 * The permission bits a file replacing `before` keeps: its own, without setuid, setgid and
 * sticky bits; `undefined` when it was no regular file (or the platform has no modes).
 *
 * @param before What the target was.
 * @returns The bits, or `undefined` (the default mode).
 */
export function keptPermissions(before: FileStat | undefined): number | undefined {
  return before?.isFile && before.mode !== null ? before.mode & 0o777 : undefined;
}

/**
 * How the built-in tools reach the file system: on the host (Deno's file API, with the checks
 * that narrow symlink races) or inside the context's sandbox session when bash is sandboxed (a
 * background command of the model could race any check on the host, so every access happens
 * where a swapped symlink can only lead to what a sandboxed command could reach anyway). Chosen
 * per context in `builtin_tools.ts`; a tool never branches on the sandbox itself.
 *
 * Paths are checked paths (`ResolvedPath.real` or paths next to them). Failures are `Deno.errors`
 * (messages never name a path) or `ToolError`s; callers turn them into tool errors.
 */
export interface FileAccess {
  /** `"host"` or `"sandbox"`: for descriptions and tests only, never for branching. */
  readonly where: "host" | "sandbox";
  /** Information of the file a path leads to (symlinks followed). */
  stat(path: string): Promise<FileStat>;
  /** Information of a path itself (a final symlink not followed), `undefined` when missing. */
  lstat(path: string): Promise<FileStat | undefined>;
  /**
   * Opens a checked path for reading. Returns the information of what it leads to and, only
   * for a regular file, the open file (nothing is opened otherwise: opening a FIFO blocks).
   */
  open(path: ResolvedPath, shown: string): Promise<{ info: FileStat; file?: OpenedFile }>;
  /**
   * Writes `data` to a new temporary file next to `target` with permission bits `options.mode`
   * (checked before any content is written) and returns its path.
   */
  stage(target: ResolvedPath, data: Uint8Array, options: StageOptions): Promise<string>;
  /**
   * Stages `data` as `stage` does and renames it over `target` in one step (one file created or
   * replaced as a whole), after checking, when `identity` is given, that `target` still is that
   * file (else `Deno.errors.NotFound`); the temporary file is removed when a step fails. With
   * `expect`, looks at the target first and writes nothing (`written: false`) when it does not
   * meet it, all in the same step (one round trip in a sandbox session).
   */
  put(target: ResolvedPath, data: Uint8Array, options: PutOptions): Promise<PutResult>;
  /** Creates one directory (its parent must exist). */
  mkdir(path: string): Promise<void>;
  /** Renames `from` to `to`, replacing `to`. */
  rename(from: string, to: string): Promise<void>;
  /** Makes `to` a hard link to `from`. */
  link(from: string, to: string): Promise<void>;
  /** Removes a file or an empty directory. */
  remove(path: string): Promise<void>;
  /** The entries of a directory. */
  readDir(path: string): Promise<FileEntry[]>;
}

/**
 * Converts a `Deno.FileInfo` into a {@linkcode FileStat}.
 *
 * @returns The fields the tools use.
 */
export function fileStat(info: Deno.FileInfo): FileStat {
  return {
    isFile: info.isFile,
    isDirectory: info.isDirectory,
    isSymlink: info.isSymlink,
    isFifo: info.isFifo === true,
    isDevice: info.isCharDevice === true || info.isBlockDevice === true,
    isSocket: info.isSocket === true,
    size: info.size,
    mode: info.mode,
    dev: info.dev,
    ino: info.ino,
  };
}

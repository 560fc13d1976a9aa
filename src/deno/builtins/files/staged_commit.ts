import { dirname } from "@std/path";
import { toFsToolError } from "../paths/fs_tool_error.ts";
import {
  lstatOrUndefined,
  removeQuietly,
  type StagedFileCheck,
  stageFile,
  tempPathFor,
} from "./staged_file.ts";
import type { ResolvedPath } from "../paths/workspace_paths.ts";

/** Device and inode of a file. */
export interface FileIdentity {
  /** The device. */
  dev: number;
  /** The inode (`null` where the platform has none). */
  ino: number | null;
}

/** The planned final state of one file: its text, or `null` when it is deleted. */
export interface Target {
  /** The checked path. */
  readonly path: ResolvedPath;
  /** The content on disk before the patch, `null` when the file does not exist. */
  readonly onDisk: string | null;
  /** Permission bits to give the new file. */
  mode?: number;
  /** Device and inode of the file on disk when it was read, to notice a swap before touching it. */
  identity?: FileIdentity;
  /** The planned content, `null` to delete. */
  content: string | null;
  /** The staged temporary file, while it exists. */
  temp?: string;
  /** The backup of the replaced or deleted file, while it exists. */
  backup?: string;
  /** Whether the new content is in place. */
  done?: boolean;
}

/**
 * Commits planned file states: stages every new content in a temporary file, then renames them
 * into place, keeping hard-link backups of replaced files; on any failure restores what was
 * already changed, removes the directories it created and throws a `ToolError`.
 *
 * @param targets The files whose content changes.
 * @param signal Stops before the first file on disk changes.
 * @param check Inspects each new temporary file before content is written to it.
 */
export async function commit(
  targets: Target[],
  signal: AbortSignal,
  check?: (target: Target) => StagedFileCheck,
): Promise<void> {
  const createdDirs: string[] = [];
  let current: Target | undefined;
  try {
    for (const file of targets) {
      current = file;
      if (file.content === null) continue;
      await makeParents(dirname(file.path.real), createdDirs);
      const mode = file.mode === undefined ? undefined : file.mode & 0o777;
      file.temp = await stageFile(
        file.path.real,
        new TextEncoder().encode(file.content),
        mode,
        check?.(file),
      );
    }
    signal.throwIfAborted();
    for (const file of targets) {
      current = file;
      if (file.onDisk !== null) {
        await checkIdentity(file.path.real, file);
        file.backup = tempPathFor(file.path.real);
        if (file.content === null) await Deno.rename(file.path.real, file.backup);
        else await Deno.link(file.path.real, file.backup);
      }
      if (file.temp !== undefined) await Deno.rename(file.temp, file.path.real);
      file.temp = undefined;
      file.done = true;
    }
  } catch (error) {
    await rollBack(targets, createdDirs);
    throw toFsToolError(error, {
      access: "write",
      shown: current?.path.display ?? "",
      root: current?.path.root ?? "",
    });
  }
  await Promise.all(targets.map((file) => file.backup && removeBackup(file.backup, file)));
}

/** Refuses to touch a path that no longer names the file that was read (a swapped symlink). */
async function checkIdentity(path: string, file: Target): Promise<void> {
  const now = await Deno.lstat(path);
  if (file.identity && (now.dev !== file.identity.dev || now.ino !== file.identity.ino)) {
    throw new Deno.errors.NotFound(`The file changed on disk while the patch was applied`);
  }
}

async function removeBackup(backup: string, file: Target): Promise<void> {
  try {
    await checkIdentity(backup, file);
  } catch {
    return; // not ours any more: leave it
  }
  await removeQuietly(backup);
}

async function rollBack(targets: Target[], createdDirs: string[]): Promise<void> {
  for (const file of [...targets].reverse()) {
    if (file.temp !== undefined) await removeQuietly(file.temp);
    if (file.backup !== undefined) {
      try {
        await Deno.rename(file.backup, file.path.real);
      } catch {
        // Best effort: the backup stays next to the file under a recognisable name.
      }
      await removeQuietly(file.backup); // still there when it was a second link to the file
    } else if (file.done) await removeQuietly(file.path.real);
  }
  for (const dir of createdDirs.reverse()) await removeQuietly(dir);
}

async function makeParents(dir: string, created: string[]): Promise<void> {
  const missing: string[] = [];
  for (let at = dir; (await lstatOrUndefined(at)) === undefined; at = dirname(at)) missing.push(at);
  for (const path of missing.reverse()) {
    await Deno.mkdir(path);
    created.push(path);
  }
}

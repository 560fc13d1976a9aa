import { toFsToolError } from "../paths/fs_tool_error.ts";
import type { FileAccess } from "./file_access.ts";
import { putFile, removeDirs, withParents } from "./put_file.ts";
import { tempPathFor } from "./staged_file.ts";
import type { ResolvedPath } from "../paths/workspace_paths.ts";

/** Device and inode of a file. */
export interface FileIdentity {
  dev: number;
  /** `null` where the platform has none. */
  ino: number | null;
}

/** The planned final state of one file: its text, or `null` when it is deleted. */
export interface Target {
  readonly path: ResolvedPath;
  /** The content on disk before the change (`""` when unread), `null` when there is no file. */
  readonly onDisk: string | null;
  /** Permission bits to give the new file. */
  mode?: number;
  /** Device and inode of the file on disk when it was read, to notice a swap before touching it. */
  identity?: FileIdentity;
  /** The planned content (text or bytes), `null` to delete. */
  content: string | Uint8Array | null;
  /** The staged temporary file, while it exists. */
  temp?: string;
  /** The backup of the replaced or deleted file, while it exists. */
  backup?: string;
  /** Whether the new content is in place. */
  done?: boolean;
}

/**
 * Commits planned file states through a file access (on the host or in the sandbox, the same
 * steps): one file is staged, checked and renamed in one step (`put`);
 * otherwise it stages every new content in a temporary file next to its target (missing parents
 * created), then renames them into place, keeping hard-link backups of replaced files (the last
 * file needs none: nothing can fail after it); on any failure restores what was already changed,
 * removes the directories it created and throws a `ToolError` naming the file.
 *
 * @param targets The files whose content changes.
 * @param options A `signal` that stops before the first file on disk changes.
 */
export async function commit(
  files: FileAccess,
  targets: Target[],
  options: { signal?: AbortSignal } = {},
): Promise<void> {
  const { signal } = options;
  const createdDirs: string[] = [];
  let current: Target | undefined;
  try {
    const [only] = targets;
    if (targets.length === 1 && only.content !== null) {
      // One file created or replaced as a whole: staged, checked and renamed in one step (one
      // round trip in a sandbox session); no backup (nothing can fail after its rename).
      current = only;
      signal?.throwIfAborted();
      await putFile(files, only.path, {
        data: bytesOf(only.content),
        mode: permissionsOf(only),
        shown: only.path.display,
        identity: only.onDisk === null ? undefined : only.identity,
      });
      only.done = true;
      return;
    }
    for (const file of targets) {
      current = file;
      if (file.content === null) continue;
      const data = bytesOf(file.content);
      const options = { mode: permissionsOf(file), shown: file.path.display };
      file.temp = await withParents(files, file.path, {
        created: createdDirs,
        step: () => files.stage(file.path, data, options),
      });
    }
    signal?.throwIfAborted();
    for (const [index, file] of targets.entries()) {
      current = file;
      const last = index === targets.length - 1;
      if (file.onDisk !== null) {
        // Without an identity, a file replaced as a whole (the last) needs no look first.
        if (file.identity || !last || file.content === null) {
          await checkIdentity(files, file.path.real, file);
        }
        if (last && file.content === null) await files.remove(file.path.real);
        else if (!last || file.content === null) {
          file.backup = tempPathFor(file.path.real);
          if (file.content === null) await files.rename(file.path.real, file.backup);
          else await files.link(file.path.real, file.backup);
        }
      }
      if (file.temp !== undefined) await files.rename(file.temp, file.path.real);
      file.temp = undefined;
      file.done = true;
    }
  } catch (error) {
    await rollBack(files, targets, createdDirs);
    throw toFsToolError(error, {
      access: "write",
      shown: current?.path.display ?? "",
      root: current?.path.root ?? "",
    });
  }
  await Promise.all(targets.map((file) => file.backup && removeBackup(files, file.backup, file)));
}

function bytesOf(content: string | Uint8Array): Uint8Array {
  return typeof content === "string" ? new TextEncoder().encode(content) : content;
}

function permissionsOf(file: Target): number | undefined {
  return file.mode === undefined ? undefined : file.mode & 0o777;
}

/** Refuses to touch a path that no longer names the file that was read (a swapped symlink). */
async function checkIdentity(files: FileAccess, path: string, file: Target): Promise<void> {
  checkSameFile(await files.lstat(path), file.identity);
}

/**
 * Throws `Deno.errors.NotFound` when a file is missing (`now` undefined) or, given an identity,
 * is not that file any more.
 *
 * @param now The path's information now.
 * @param identity The device and inode it must have.
 */
export function checkSameFile(
  now: { dev: number; ino: number | null } | undefined,
  identity: FileIdentity | undefined,
): void {
  if (now === undefined) {
    throw new Deno.errors.NotFound("The file disappeared while it was changed");
  }
  if (identity && (now.dev !== identity.dev || now.ino !== identity.ino)) {
    throw new Deno.errors.NotFound(`The file changed on disk while the patch was applied`);
  }
}

async function removeBackup(files: FileAccess, backup: string, file: Target): Promise<void> {
  try {
    await checkIdentity(files, backup, file);
  } catch {
    return; // not ours any more: leave it
  }
  await files.remove(backup).catch(() => {});
}

async function rollBack(
  files: FileAccess,
  targets: Target[],
  createdDirs: string[],
): Promise<void> {
  // Clean-up is best effort; the original failure is what the caller reports.
  const quietly = () => {};
  for (const file of [...targets].reverse()) {
    if (file.temp !== undefined) await files.remove(file.temp).catch(quietly);
    if (file.backup !== undefined) {
      // The backup stays next to the file under a recognisable name when this fails.
      await files.rename(file.backup, file.path.real).catch(quietly);
      await files.remove(file.backup).catch(quietly); // still there when it was a second link
    } else if (file.done) await files.remove(file.path.real).catch(quietly);
  }
  await removeDirs(files, createdDirs);
}

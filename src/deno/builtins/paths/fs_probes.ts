// Metadata calls for walks and checks that decide for themselves what an unreadable path means:
// a path that cannot be looked at (gone, or refused) reads as absent. Synchronous on purpose: a
// walk is many tiny calls, and each asynchronous one costs several times its work in scheduling
// (see docs/security.md). `lstatSyncOrUndefined` is the strict one, for path checks: it throws
// all but `NotFound`.

/**
 * The metadata of a path itself (a link is not followed), or `undefined` when nothing is there.
 * Synchronous: a path check is many tiny calls, and each asynchronous one costs several times its
 * work in scheduling; `lstat` opens nothing, so it cannot hang on a named pipe.
 *
 * @returns Its metadata, or `undefined` when it does not exist.
 * @throws Any other error of `Deno.lstatSync` (permission denied, not a directory, …).
 */
export function lstatSyncOrUndefined(path: string): Deno.FileInfo | undefined {
  try {
    return Deno.lstatSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

/**
 * The entries of a folder, or none when it cannot be listed.
 *
 * @returns Its entries.
 */
export function readDirOrEmpty(path: string): Deno.DirEntry[] {
  try {
    return [...Deno.readDirSync(path)];
  } catch {
    return [];
  }
}

/**
 * The metadata of a path itself (a link is not followed), or `undefined` when it cannot be had.
 *
 * @returns Its metadata.
 */
export function lstatOrUndefined(path: string): Deno.FileInfo | undefined {
  try {
    return Deno.lstatSync(path);
  } catch {
    return undefined;
  }
}

/**
 * Whether something (a file, a folder, a link, even a dangling one) is at a path.
 *
 * @returns `true` when `lstat` finds it.
 */
export function lexists(path: string): boolean {
  return lstatOrUndefined(path) !== undefined;
}

/**
 * Where a path leads (links resolved), or `undefined` when it cannot be resolved.
 *
 * @returns Its real path.
 */
export function realPathOrUndefined(path: string): string | undefined {
  try {
    return Deno.realPathSync(path);
  } catch {
    return undefined;
  }
}

/**
 * The `dev:ino` of a file, which the sandbox checks again before a command runs.
 *
 * @returns `dev:ino`, or `undefined` when the platform has no inodes.
 */
export function identityOf(info: Deno.FileInfo | undefined): string | undefined {
  if (info === undefined) return undefined;
  return info.dev === null || info.ino === null ? undefined : `${info.dev}:${info.ino}`;
}

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

import { basename, dirname, join, resolve } from "@std/path";
import { lstatSyncOrUndefined } from "./lstat_sync_or_undefined.ts";

const MAX_LINKS = 40;

/**
 * Returns where a path really leads: symlinks resolved, also for a path that does not exist yet
 * (its nearest existing parent is resolved and the rest appended) and for a dangling symlink
 * (its target is followed as the operating system would when creating the file).
 *
 * Deno's permission check does not follow symlinks, so containment must be checked on this path.
 * Throws what `Deno.realPath`, `Deno.lstat` or `Deno.readLink` throw, other than `NotFound`,
 * and a `Deno.errors.FilesystemLoop` for more than 40 links.
 *
 * Synchronous: the path checks make a few metadata calls per tool call, and an asynchronous one
 * costs a thread hop of several times its work (none of them opens a file, so a FIFO cannot
 * block them).
 *
 * @param path An absolute, normalized path.
 * @returns The absolute real path.
 */
export function realTargetSync(path: string): string {
  return follow(path, 0);
}

function follow(path: string, links: number): string {
  if (links > MAX_LINKS) throw new Deno.errors.FilesystemLoop("Too many levels of symbolic links");
  try {
    return Deno.realPathSync(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  const info = lstatSyncOrUndefined(path);
  if (info?.isSymlink) {
    // A dangling link: creating the path would create the link's target.
    const target = Deno.readLinkSync(path);
    return follow(resolve(dirname(path), target), links + 1);
  }
  const parent = dirname(path);
  if (parent === path) return path;
  return join(follow(parent, links), basename(path));
}

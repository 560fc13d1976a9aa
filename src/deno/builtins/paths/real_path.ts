import { basename, dirname, join, resolve } from "@std/path";
import { lstatOrUndefined } from "../files/staged_file.ts";

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
 * @param path An absolute, normalized path.
 * @returns The absolute real path.
 */
export async function realTarget(path: string): Promise<string> {
  return await follow(path, 0);
}

async function follow(path: string, links: number): Promise<string> {
  if (links > MAX_LINKS) throw new Deno.errors.FilesystemLoop("Too many levels of symbolic links");
  try {
    return await Deno.realPath(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  const info = await lstatOrUndefined(path);
  if (info?.isSymlink) {
    // A dangling link: creating the path would create the link's target.
    const target = await Deno.readLink(path);
    return await follow(resolve(dirname(path), target), links + 1);
  }
  const parent = dirname(path);
  if (parent === path) return path;
  return join(await follow(parent, links), basename(path));
}

/**
 * Whether something (a file, a folder, a link, even a dangling one) is at `path`; the last link is
 * not followed (`@std/fs`'s `exists` follows it, and a planted link must count).
 *
 * @param path The path.
 * @returns `true` when `lstat` finds it.
 */
export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

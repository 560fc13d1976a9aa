/**
 * Returns whether `path` is `root` or inside it, comparing whole path components (`/ws_evil` is
 * not inside `/ws`). Both must be normalized; a trailing slash on `root` does not matter
 * (`/srv/data/` holds `/srv/data`).
 *
 * @returns `true` when inside.
 */
export function within(root: string, path: string): boolean {
  const base = root.replace(/\/+$/, "");
  return path === base || path.startsWith(`${base}/`);
}

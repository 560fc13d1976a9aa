/**
 * The path of a `file:` URL (POSIX).
 *
 * @param url The URL.
 * @returns The path.
 */
export function fromFileUrl(url: URL): string {
  return decodeURIComponent(url.pathname);
}

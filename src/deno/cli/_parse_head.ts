/** A request's line and headers. */
export interface ParsedHead {
  method: string;
  target: string;
  headers: Headers;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

// The request line and headers (RFC 9112), strictly: anything odd is a 400, never a guess.
export function parseHead(bytes: Uint8Array): ParsedHead | number {
  const text = new TextDecoder("latin1").decode(bytes);
  const lines = text.split("\r\n");
  const line = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) (\/[^\s]*|\*) HTTP\/1\.([01])$/.exec(lines[0]);
  if (line === null) return /^\S+ \S+ HTTP\/\d/.test(lines[0]) ? 505 : 400;
  const headers = new Headers();
  for (const header of lines.slice(1)) {
    const colon = header.indexOf(":");
    if (colon <= 0) return 400;
    const name = header.slice(0, colon);
    const value = header.slice(colon + 1).trim();
    // No obsolete line folding, no control characters (Headers refuses some, not all).
    // deno-lint-ignore no-control-regex
    if (!TOKEN.test(name) || /[\x00-\x08\x0a-\x1f\x7f]/.test(value)) return 400;
    try {
      headers.append(name, value);
    } catch {
      return 400;
    }
  }
  if (line[3] === "1" && !headers.has("host")) return 400;
  return { method: line[1], target: line[2], headers };
}

const encoder = new TextEncoder();

/**
 * JSON with object keys sorted at every depth and `undefined` members left out, so equal data
 * always gives equal text (for hashes of tool definitions and of call arguments).
 *
 * @param value Plain JSON data.
 * @returns The canonical text.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) {
    return `[${value.map((item) => item === undefined ? "null" : canonicalJson(item)).join(",")}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).filter((key) => record[key] !== undefined).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(",")}}`;
}

/**
 * The hex SHA-256 of a text (WebCrypto), prefixed `sha256-`.
 *
 * @param text The text (UTF-8).
 * @returns The digest.
 */
export async function sha256(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
  let hex = "";
  for (const byte of digest) hex += byte.toString(16).padStart(2, "0");
  return `sha256-${hex}`;
}

import { sha256Hex } from "./sha256_hex.ts";

/**
 * JSON with object keys sorted at every depth and `undefined` members left out, so equal data
 * always gives equal text (for hashes of tool definitions and of call arguments).
 *
 * @param value Plain JSON data.
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
 */
export async function sha256(text: string): Promise<string> {
  return `sha256-${await sha256Hex(text)}`;
}

/**
 * Joins byte arrays into one new array (a single copy, whatever the number of parts).
 *
 * @param parts The arrays, in order.
 * @param size Their total length, when the caller knows it already.
 * @returns The joined bytes.
 */
export function concatBytes(parts: readonly Uint8Array[], size?: number): Uint8Array {
  const total = size ?? parts.reduce((sum, part) => sum + part.length, 0);
  const joined = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    joined.set(part, at);
    at += part.length;
  }
  return joined;
}

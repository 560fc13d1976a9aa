/**
 * The hex SHA-256 of a text (UTF-8), by WebCrypto: every runtime toolroute runs on (Deno, edge
 * workers, browsers) has it, so no hand-written hash is needed.
 *
 * @returns 64 hex digits.
 */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

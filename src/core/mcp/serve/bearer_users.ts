import { sha256Hex } from "../../sha256_hex.ts";

/** Returns the user of a bearer token, or `undefined` for a token that is not configured. */
export type BearerUsers = (token: string) => string | undefined | Promise<string | undefined>;

/**
 * The user of each configured bearer token (`mcpHttpHandler`'s `tokens`, `serve --http`'s users).
 * Throws a `TypeError` for an empty token or user id.
 *
 * A token is looked up by its SHA-256, never compared with a configured one byte by byte. A
 * token found that way is remembered as sent, so its next requests skip the digest (WebCrypto's
 * is an asynchronous operation, the largest cost of an authenticated request): only configured
 * tokens get in, so the memory holds at most one entry each. A token sent is read against the
 * remembered ones by the runtime's hash table, which compares the bytes of two strings only when
 * their (seeded) hashes are equal: its timing tells no prefix of a token.
 */
export function bearerUsers(tokens: Readonly<Record<string, string>>): BearerUsers {
  const entries = Object.entries(tokens);
  for (const [token, userId] of entries) {
    if (token === "" || typeof userId !== "string" || userId === "") {
      throw new TypeError(
        "Cannot create MCP handler: every token must be a non-empty string mapped to a non-empty user id",
      );
    }
  }
  const digests = Promise.all(
    entries.map(async ([token, userId]) => [await sha256Hex(token), userId] as const),
  ).then((pairs) => new Map(pairs));
  const found = new Map<string, string>();
  const byDigest = async (token: string): Promise<string | undefined> => {
    const userId = (await digests).get(await sha256Hex(token));
    if (userId !== undefined) found.set(token, userId);
    return userId;
  };
  return (token) => found.get(token) ?? byDigest(token);
}

/** The bearer token of a request's `Authorization` header, if any. */
export function bearerToken(request: Request): string | undefined {
  const header = request.headers.get("authorization");
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1];
}

/**
 * A user must authorize toolroute at an MCP server's authorization server before the server can be
 * used. The message reaches the model (as a call's error or a `missing` reason), so it never holds
 * the authorization URL: the URL is in `authorizationUrl` (and `oauth.waiting()`) for
 * the host to hand to the person, who completes the flow at the host's redirect URI
 * (`oauth.complete()`). Whoever holds the URL can link their account in the user's
 * name, so it must not reach the model, logs or anyone else.
 *
 * @example Hand the link to the person, keep it from the model
 * ```ts
 * import { AuthorizationRequiredError } from "@toolroute/toolroute/mcp";
 * import { assert, assertEquals } from "@std/assert";
 *
 * const error = new AuthorizationRequiredError("crm", {
 *   userId: "alice",
 *   authorizationUrl: "https://auth.example.com/authorize?state=abc",
 * });
 * assertEquals(error.summary, "Authorization required");
 * assert(!error.message.includes("auth.example.com")); // the model reads the message
 * assertEquals(error.authorizationUrl, "https://auth.example.com/authorize?state=abc");
 * ```
 */
export class AuthorizationRequiredError extends Error {
  /** The URL the user opens to authorize, or `undefined` when asking again would not help. */
  readonly authorizationUrl?: string;
  /** The server id. */
  readonly serverId: string;
  /** The user, for a per-user server. */
  readonly userId?: string;
  /**
   * Set when a global server authorizes each user and the request had no user: asking again
   * without a user id never helps.
   */
  readonly perUser?: boolean;

  /**
   * Creates the error.
   *
   * @param serverId The server id.
   * @param options The user, the authorization URL, or why no URL is given; `perUser` for a
   *   global server that authorizes each user, reached without a user.
   */
  constructor(
    serverId: string,
    options: { userId?: string; authorizationUrl?: string; reason?: string; perUser?: boolean } =
      {},
  ) {
    super(
      options.perUser === true
        ? `MCP server "${serverId}" authorizes each user with their own account (OAuth) and this request has no user id, so it cannot act for anyone: call it as a user (a user's token with "serve --http", "--user" otherwise), or give the server a shared service account ("oauth": { "grant": "client_credentials" }, or an Authorization header)`
        : options.authorizationUrl !== undefined
        ? `Authorization required for MCP server "${serverId}": the user must sign in and allow access, then try again; the sign-in link goes to the user through their MCP client, it is not given here`
        : `Authorization failed for MCP server "${serverId}": ${options.reason ?? "access denied"}`,
    );
    this.name = "AuthorizationRequiredError";
    this.serverId = serverId;
    if (options.userId !== undefined) this.userId = options.userId;
    if (options.authorizationUrl !== undefined) this.authorizationUrl = options.authorizationUrl;
    if (options.perUser === true) this.perUser = true;
  }

  /** A short summary, for `status()` and events. */
  get summary(): string {
    return this.authorizationUrl === undefined ? this.message : "Authorization required";
  }
}

/**
 * Finds an {@linkcode AuthorizationRequiredError} in an error or its chain of causes.
 *
 * @param error A thrown value.
 * @returns The error, or `undefined`.
 */
export function findAuthorizationRequired(error: unknown): AuthorizationRequiredError | undefined {
  for (let e = error, depth = 0; e !== undefined && e !== null && depth < 8; depth++) {
    if (e instanceof AuthorizationRequiredError) return e;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

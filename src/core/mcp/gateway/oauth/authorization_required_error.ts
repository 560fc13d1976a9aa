/**
 * A user must authorize toolroute at an MCP server's authorization server before the server can be
 * used. The message carries the authorization URL for that user (it holds no token); the host
 * shows it, and completes the flow with `gateway.completeAuthorization()` at its redirect URI.
 */
export class AuthorizationRequiredError extends Error {
  /** The URL the user opens to authorize, or `undefined` when asking again would not help. */
  readonly authorizationUrl?: string;
  /** The server id. */
  readonly serverId: string;
  /** The user, for a per-user server. */
  readonly userId?: string;

  /**
   * Creates the error.
   *
   * @param serverId The server id.
   * @param options The user, the authorization URL, or why no URL is given.
   */
  constructor(
    serverId: string,
    options: { userId?: string; authorizationUrl?: string; reason?: string } = {},
  ) {
    super(
      options.authorizationUrl !== undefined
        ? `Authorization required for MCP server "${serverId}": the user must open ${options.authorizationUrl} and allow access, then try again`
        : `Authorization failed for MCP server "${serverId}": ${options.reason ?? "access denied"}`,
    );
    this.name = "AuthorizationRequiredError";
    this.serverId = serverId;
    if (options.userId !== undefined) this.userId = options.userId;
    if (options.authorizationUrl !== undefined) this.authorizationUrl = options.authorizationUrl;
  }

  /** A summary without the URL, for `status()` and events. */
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

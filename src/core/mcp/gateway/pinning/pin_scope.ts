/**
 * Whose pins. A user's own server's pins are that user's. A global server's pins are per user
 * too when the request has a user: the user's own acceptance (`acceptToolChanges(id, { userId })`)
 * when there is one, else the server-wide pin (the first definition the gateway saw of the tool,
 * or the operator's acceptance), so a user who first meets a tool after it drifted meets it
 * withheld, not pinned in its drifted form.
 */
export interface PinScope {
  serverId: string;
  /** The user: of a user's own server, or the request's user of a global server. */
  userId?: string;
  /** Whether the server is a global one (default: global only when there is no `userId`). */
  global?: boolean;
  /** Its `scopeKey`, made once by a caller that keeps the scope (see `keyedScope`). */
  readonly key?: string;
}

/**
 * A scope that carries its key, for a caller that keeps it across calls (a connection's callee):
 * each check then reads the key instead of making it.
 *
 * @param scope The server (and user).
 * @returns The scope with its key.
 */
export function keyedScope(scope: PinScope): PinScope {
  const { serverId, userId } = scope;
  const key = scopeKey(scope);
  // Literals, not a spread plus a field (that adds a separate property store per scope).
  return scope.global === true
    ? { serverId, userId, global: true, key }
    : { serverId, userId, key };
}

/** Whether the scope is a global server seen by one user (own acceptances over server-wide pins). */
export function isUserOfGlobal(scope: PinScope): boolean {
  return scope.global === true && scope.userId !== undefined;
}

/** Whether the scope is a user's own server. */
export function isOwnServer(scope: PinScope): boolean {
  return scope.global !== true && scope.userId !== undefined;
}

/**
 * The store key of a tool's pin: `["pins", "global", serverId, tool]` (server-wide),
 * `["pins", "user", userId, serverId, tool]` (a user's own server) or
 * `["pins", "global-user", userId, serverId, tool]` (one user's acceptance on a global server).
 *
 * @param scope The server (and user).
 * @param toolName The tool's name on the server.
 */
export function pinKey(scope: PinScope, toolName: string): string[] {
  if (isOwnServer(scope)) return ["pins", "user", scope.userId!, scope.serverId, toolName];
  if (isUserOfGlobal(scope)) {
    return ["pins", "global-user", scope.userId!, scope.serverId, toolName];
  }
  return ["pins", "global", scope.serverId, toolName];
}

/** The server-wide scope of a global server. */
export function serverWide(scope: PinScope): PinScope {
  return { serverId: scope.serverId, global: true };
}

/** One text per scope: `u` (own server) or `g` (global), the server, the user. */
export function scopeKey(scope: PinScope): string {
  return `${isOwnServer(scope) ? "u" : "g"}\u0000${scope.serverId}\u0000${scope.userId ?? ""}`;
}

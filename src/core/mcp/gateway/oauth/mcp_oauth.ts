import type { KeyValueStore } from "../../../store/key_value_store.ts";
import { MemoryStore } from "../../../store/memory_store.ts";
import { EncryptedStore } from "../../../store/encrypted_store.ts";
import type { McpOAuthOptions } from "./mcp_oauth_options.ts";
import type { McpOAuthClient } from "../../mcp_server_config.ts";
import { OAuthSession } from "./oauth_session.ts";
import { oauthRequestFetch } from "./oauth_request_fetch.ts";
import { claimCallback } from "./claim_callback.ts";
import { issueAuthorizationTicket, redeemAuthorizationTicket } from "./authorization_ticket.ts";
import type { PendingAuthorization } from "./store_oauth_provider.ts";
import { AuthorizationRequiredError } from "./authorization_required_error.ts";
import { numberAtLeast } from "../../../check_positive.ts";

/**
 * The MCP authorization flow for a gateway's HTTP servers: OAuth 2.1 with PKCE through the MCP
 * SDK's `auth()`, with tokens, refresh tokens and client registrations kept per (user, server,
 * authorization server) in a `KeyValueStore`. Pass it as `new McpGateway({ oauth })`; one
 * `McpOAuth` serves one gateway. Bundles that do not use it leave it out.
 *
 * A server configured without an `Authorization` header that answers `401` is reported in the
 * tool set's `missing` (and a call to it returns an error) saying the user must sign in; the
 * text reaches the model, so it never carries the authorization URL. The host hands the URL to
 * the person (`oauth.waiting(userId)`, or a ticket link through its own first hop,
 * `oauth.ticket()`); its redirect URI hands the redirect to
 * `oauth.complete(userId, serverId, callbackUrl)`, and the next request exposes
 * the server's tools. A global server is authorized per user too: its shared connection never
 * signs in (unless its client is a `client_credentials` service account), each user's
 * connection carries that user's own token.
 *
 * @example A web host connecting its users' accounts
 * ```ts ignore
 * import { ToolRouter } from "@toolroute/toolroute";
 * import { McpGateway, McpOAuth } from "@toolroute/toolroute/mcp";
 *
 * const oauth = new McpOAuth({ redirectUrl: "https://app.example.com/oauth/callback" });
 * const gateway = new McpGateway({ oauth });
 * gateway.addUserServer("alice", "tracker", { url: "https://tracker.example.com/mcp" });
 * const router = new ToolRouter({ gateway });
 * const toolSet = await router.expose({ mcpServers: ["tracker"], userId: "alice" });
 * // toolSet.missing[0].reason: 'Authorization required for MCP server "tracker": the user must sign in…'
 * // The app shows the person (never the model) oauth.waiting("alice")[0].authorizationUrl.
 * // Later, in the handler of /oauth/callback, for the signed-in user:
 * await oauth.complete("alice", "tracker", request.url);
 * ```
 */
export class McpOAuth {
  #options: McpOAuthOptions;
  #store: KeyValueStore;
  #net?: {
    fetch?: typeof fetch;
    allowedHosts?: readonly string[];
    signal?: AbortSignal;
    timeoutMs?: number;
  };
  #sessions = new Map<string, OAuthSession>();
  /**
   * The `oauth` clients of server configs, by user, server id and URL (for the code exchange): a
   * client one user's own entry names (a service account, say) is never another user's.
   */
  #configured = new Map<string, McpOAuthClient>();
  /** Global servers that asked their shared connection for authorization. */
  #perUser = new Set<string>();
  #stateTtlMs: number;
  #refreshBeforeMs: number;
  #maxScopeUpgrades: number;
  #redirect: URL;

  /**
   * Checks the options: a `TypeError` for a bad URL, a `RangeError` for a bad number.
   *
   * @param options The redirect URI, client settings, store and limits.
   */
  constructor(options: McpOAuthOptions) {
    const redirect = URL.parse(options?.redirectUrl);
    if (redirect === null || !/^https?:$/.test(redirect.protocol)) {
      throw new TypeError(
        `Cannot create McpOAuth: "redirectUrl" must be an http(s) URL, received ${
          JSON.stringify(options?.redirectUrl)
        }`,
      );
    }
    const cimd = options.clientMetadataUrl;
    if (cimd !== undefined && !(URL.canParse(cimd) && /^https:\/\/[^/]+\/./.test(cimd))) {
      throw new TypeError(
        `Cannot create McpOAuth: "clientMetadataUrl" must be an https URL with a path, received ${
          JSON.stringify(cimd)
        }`,
      );
    }
    this.#options = options;
    this.#redirect = redirect;
    const store = options.store ?? new MemoryStore();
    this.#store = options.storeKey === undefined
      ? store
      : new EncryptedStore(store, options.storeKey);
    const setting = (
      name: "stateTtlMs" | "refreshBeforeMs" | "maxScopeUpgrades",
      fallback: number,
    ) => numberAtLeast(options[name], name, { where: "Cannot create McpOAuth", min: 0, fallback });
    this.#stateTtlMs = setting("stateTtlMs", 600_000);
    this.#refreshBeforeMs = setting("refreshBeforeMs", 60_000);
    this.#maxScopeUpgrades = setting("maxScopeUpgrades", 2);
  }

  /**
   * Binds it to a gateway's fetch and host allowlist; called by `McpGateway`. Throws a
   * `TypeError` the second time: one `McpOAuth` serves one gateway.
   *
   * @param net The gateway's fetch and `allowedHosts`, the `signal` of its close, which ends the
   *   authorization requests under way, and its connect deadline (`timeoutMs`), each request's.
   */
  attach(
    net: {
      fetch?: typeof fetch;
      allowedHosts?: readonly string[];
      signal?: AbortSignal;
      timeoutMs?: number;
    },
  ): void {
    if (this.#net !== undefined) {
      throw new TypeError("Cannot create McpGateway: this McpOAuth serves another gateway already");
    }
    this.#net = net;
  }

  /**
   * Wraps the fetch of one connection with authorization.
   *
   * @param target The server id, the user, the server's URL and the server config's `oauth`
   *   client (before `clients[serverId]`).
   * @param next The fetch that reaches the MCP server.
   * @returns The fetch with authorization.
   */
  fetchFor(
    target: { serverId: string; userId?: string; serverUrl: string; client?: McpOAuthClient },
    next: typeof fetch,
  ): typeof fetch {
    const { serverId, userId } = target;
    const client = target.client ?? this.#options.clients?.[serverId];
    if (target.client !== undefined) {
      this.#configured.set(
        JSON.stringify([userId ?? "", serverId, target.serverUrl]),
        target.client,
      );
    }
    // A global server's connection (no user) holds one shared account only when the config says
    // so (a `client_credentials` client): a user's sign-in must never become everyone's.
    if (userId === undefined && client?.grant !== "client_credentials") {
      return this.#withoutUser(serverId, next);
    }
    return this.#session(userId, serverId, target.serverUrl, client).fetchFor(next);
  }

  /**
   * Whether a global server answered its shared connection that it needs authorization: it is
   * then reached through a connection per user, each with that user's own tokens.
   *
   * @param serverId The server id.
   * @returns `true` once the server asked for authorization without a user.
   */
  authorizesPerUser(serverId: string): boolean {
    return this.#perUser.has(serverId);
  }

  /** The shared connection's fetch: no token at all; a `401` marks the server per-user. */
  #withoutUser(serverId: string, next: typeof fetch): typeof fetch {
    return async (input, init) => {
      const response = await next(input, init);
      const bearerChallenge = response.status === 401 ||
        (response.status === 403 &&
          /^Bearer\b/i.test(response.headers.get("www-authenticate") ?? ""));
      if (!bearerChallenge) return response;
      await response.body?.cancel().catch(() => {});
      this.#perUser.add(serverId);
      throw new AuthorizationRequiredError(serverId, { perUser: true });
    };
  }

  /**
   * The authorization URLs a user was asked to open and has not completed, newest per server.
   *
   * @param userId The user (absent for global servers).
   * @returns One entry per server waiting for the user.
   */
  waiting(userId?: string): { serverId: string; authorizationUrl: string }[] {
    const waiting = new Map<string, string>();
    for (const [key, session] of this.#sessions) {
      const [user, serverId] = JSON.parse(key) as [string, string];
      const url = session.authorizationUrl;
      if (user === (userId ?? "") && url !== undefined) waiting.set(serverId, url);
    }
    return [...waiting].map(([serverId, authorizationUrl]) => ({ serverId, authorizationUrl }));
  }

  /**
   * The tokens a connection used lately, for redaction.
   *
   * @param serverId The server id.
   * @param userId The user.
   * @returns The tokens.
   */
  secrets(serverId: string, userId?: string): string[] {
    const prefix = JSON.stringify([userId ?? "", serverId]).slice(0, -1) + ",";
    return [...this.#sessions].filter(([key]) => key.startsWith(prefix))
      .flatMap(([, session]) => [...session.recentTokens]);
  }

  /**
   * Completes an authorization: checks the callback's `state` (known, unexpired, unused, and
   * started for this user and server), `error` and `iss` (RFC 9207), then exchanges the code.
   * Throws a `TypeError` for a callback that does not fit, an `Error` when the exchange fails.
   *
   * With `binding`, the callback must also come from the browser that redeemed the
   * authorization's ticket ({@linkcode McpOAuth.redeemTicket}): the cookie value it brought
   * (`""` for none) is checked before anything is used up.
   *
   * @param userId The user the host's session belongs to (absent for a global server).
   * @param serverId The server id.
   * @param callbackUrl The URL the authorization server redirected the user to.
   * @param options The browser's binding cookie, where the host binds browsers.
   */
  async complete(
    userId: string | undefined,
    serverId: string,
    callbackUrl: string | URL,
    options: { binding?: string } = {},
  ): Promise<void> {
    const { pending, code, iss } = await claimCallback(
      { store: this.#store, redirect: this.#redirect, stateTtlMs: this.#stateTtlMs },
      { user: userId ?? "", serverId, callbackUrl, binding: options.binding },
    );
    await this.#session(userId, serverId, pending.serverUrl).complete(pending, code, iss);
  }

  /**
   * A single-use ticket for the authorization a user was asked for (the newest for the server),
   * for a link that goes through the host's first hop instead of straight to the authorization
   * server: whoever redeems it first is the browser bound to the authorization.
   *
   * @param userId The user (absent for a global server with a service account).
   * @param serverId The server id.
   * @returns The ticket, or `undefined` when nothing waits for the user.
   */
  async ticket(userId: string | undefined, serverId: string): Promise<string | undefined> {
    const url = this.waiting(userId).find((entry) => entry.serverId === serverId)
      ?.authorizationUrl;
    const state = url === undefined ? null : new URL(url).searchParams.get("state");
    if (state === null) return undefined;
    return await issueAuthorizationTicket(this.#store, { state, user: userId ?? "", serverId }, {
      ttlMs: this.#stateTtlMs,
    });
  }

  /**
   * Redeems a ticket once: binds its authorization to a new cookie value (kept as a digest) and
   * returns where to send the browser; `undefined` for a ticket unknown, expired or used.
   *
   * @param ticket The ticket.
   * @returns The authorization URL, the cookie value, the state and who it is for.
   */
  async redeemTicket(ticket: string): Promise<
    | { location: string; binding: string; state: string; user: string; serverId: string }
    | undefined
  > {
    return await redeemAuthorizationTicket(this.#store, ticket, { ttlMs: this.#stateTtlMs });
  }

  /**
   * The user and server an unexpired, unused authorization was started for, read from the
   * callback's `state` without using it up; for a redirect endpoint that cannot tell the user
   * (a browser without the host's session).
   *
   * @param callbackUrl The redirect URL.
   * @returns The user (absent for a global server) and server, or `undefined`.
   */
  async pending(
    callbackUrl: string | URL,
  ): Promise<{ userId?: string; serverId: string } | undefined> {
    const state = URL.parse(callbackUrl)?.searchParams.get("state");
    if (!state || await this.#store.get(["oauth", "used", state]) !== undefined) return undefined;
    const pending = await this.#store.get<PendingAuthorization>(["oauth", "pending", state]);
    if (pending === undefined) return undefined;
    const { user, serverId } = pending;
    return user === "" ? { serverId } : { userId: user, serverId };
  }

  /**
   * Forgets the tokens, registrations and discovery of a user's server (or of all the user's).
   *
   * @param userId The user (absent for a global server).
   * @param serverId The server id, or `undefined` for all.
   */
  async forget(userId: string | undefined, serverId?: string): Promise<void> {
    const user = userId ?? "";
    for (const kind of ["tokens", "client", "discovery"]) {
      const prefix = ["oauth", kind, user, ...(serverId === undefined ? [] : [serverId])];
      for (const entry of await this.#store.list(prefix)) await this.#store.delete(entry.key);
    }
    for (const key of this.#sessions.keys()) {
      const [u, s] = JSON.parse(key) as [string, string];
      if (u === user && (serverId === undefined || s === serverId)) this.#sessions.delete(key);
    }
  }

  #session(
    userId: string | undefined,
    serverId: string,
    serverUrl: string,
    client?: McpOAuthClient,
  ): OAuthSession {
    const user = userId ?? "";
    const key = JSON.stringify([user, serverId, serverUrl]);
    let session = this.#sessions.get(key);
    if (session === undefined) {
      session = new OAuthSession({
        store: this.#store,
        user,
        serverId,
        serverUrl,
        redirectUrl: this.#redirect.href,
        clientName: this.#options.clientName ?? "toolroute",
        clientMetadataUrl: this.#options.clientMetadataUrl,
        client: client ?? this.#configured.get(key) ?? this.#options.clients?.[serverId],
        stateTtlMs: this.#stateTtlMs,
        refreshBeforeMs: this.#refreshBeforeMs,
        maxScopeUpgrades: this.#maxScopeUpgrades,
        authFetch: oauthRequestFetch({
          fetch: this.#net?.fetch,
          allowedHosts: this.#net?.allowedHosts,
          signal: this.#net?.signal,
          timeoutMs: this.#net?.timeoutMs,
          serverUrl: new URL(serverUrl),
        }),
      });
      this.#sessions.set(key, session);
    }
    return session;
  }
}

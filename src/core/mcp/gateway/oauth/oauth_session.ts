import { extractWWWAuthenticateParams, oauthAuthorize } from "../../mcp_sdk.ts";
import { AuthorizationRequiredError } from "./authorization_required_error.ts";
import type { PendingAuthorization, StoredTokens } from "./store_oauth_provider.ts";
import { StoreOAuthProvider, type StoreOAuthProviderSettings } from "./store_oauth_provider.ts";

/** What one session needs beyond its provider's settings. */
export interface OAuthSessionSettings extends StoreOAuthProviderSettings {
  /** The fetch of authorization requests (guarded). */
  authFetch: typeof fetch;
  /** Refresh this long before expiry. */
  refreshBeforeMs: number;
  /** Most step-up authorizations per scope. */
  maxScopeUpgrades: number;
}

/**
 * The authorization of one (user, server): runs the SDK's `auth()` one flow at a time (callers
 * arriving during a flow join it, so concurrent calls during a refresh refresh once), adds the
 * bearer token to MCP requests, refreshes before expiry, answers `401` and `403
 * insufficient_scope`, and turns "the user must authorize" into {@linkcode AuthorizationRequiredError}.
 */
export class OAuthSession {
  #s: OAuthSessionSettings;
  #provider: StoreOAuthProvider;
  #running?: Promise<"AUTHORIZED" | "REDIRECT">;
  #upgrades = new Map<string, number>();
  /** The tokens used lately, so error texts can be cleaned of them. */
  #recent: string[] = [];

  constructor(settings: OAuthSessionSettings) {
    this.#s = settings;
    this.#provider = new StoreOAuthProvider(settings);
  }

  /**
   * Wraps the fetch of the MCP connection.
   *
   * @param next The fetch that reaches the MCP server.
   */
  fetchFor(next: typeof fetch): typeof fetch {
    return async (input, init) => {
      let sent = await this.#bearer();
      let response = await next(input, withBearer(init, sent));
      for (
        let retried = false;
        response.status === 401 || response.status === 403;
        retried = true
      ) {
        const challenge = extractWWWAuthenticateParams(response);
        if (response.status === 403 && challenge.error !== "insufficient_scope") break;
        await response.body?.cancel().catch(() => {});
        if (retried) {
          // Refused again right after a new token: ask the user rather than refresh in a loop.
          await this.#provider.invalidateCredentials("tokens");
          await this.#challenge(response.status, challenge, false);
          throw this.#required("the server refused the new access token");
        }
        // A token that changed meanwhile (another call refreshed it) is simply tried.
        const current = await this.#bearer();
        if (current === undefined || current === sent) {
          await this.#challenge(response.status, challenge, sent !== undefined);
        }
        sent = await this.#bearer();
        if (sent === undefined) throw this.#required("no access token");
        response = await next(input, withBearer(init, sent));
      }
      return response;
    };
  }

  /**
   * Exchanges the code of a completed authorization for tokens.
   *
   * @param pending The pending authorization (checked by the caller).
   * @param iss The callback's `iss` (RFC 9207), already checked.
   */
  async complete(pending: PendingAuthorization, code: string, iss?: string): Promise<void> {
    await this.#run(() => {
      this.#provider.usePending(pending);
      return oauthAuthorize(this.#provider, {
        serverUrl: this.#s.serverUrl,
        authorizationCode: code,
        ...(iss === undefined ? {} : { iss }),
        fetchFn: this.#s.authFetch,
      });
    });
  }

  /** The access token to send, refreshed first when it expires soon. */
  async #bearer(): Promise<string | undefined> {
    await this.#running?.catch(() => {});
    let tokens: StoredTokens | undefined = await this.#provider.tokens();
    const expiresAt = tokens?.expires_at;
    // Refreshed `refreshBeforeMs` before expiry, or at half its life for a short-lived token.
    const early = Math.min(this.#s.refreshBeforeMs, (tokens?.expires_in ?? Infinity) * 500);
    if (
      tokens?.refresh_token !== undefined && expiresAt !== undefined &&
      expiresAt - Date.now() <= early
    ) {
      const result = await this.#run(() =>
        oauthAuthorize(this.#provider, { serverUrl: this.#s.serverUrl, fetchFn: this.#s.authFetch })
      ).catch(() => "FAILED" as const);
      if (result !== "AUTHORIZED") throw this.#required("the access token expired");
      tokens = await this.#provider.tokens();
    }
    for (const token of [tokens?.access_token, tokens?.refresh_token]) {
      if (token !== undefined && !this.#recent.includes(token)) this.#recent.push(token);
    }
    this.#recent.splice(0, this.#recent.length - 8);
    return tokens?.access_token;
  }

  /** The authorization URL the user was last asked to open, until tokens arrive. */
  get authorizationUrl(): string | undefined {
    return this.#provider.authorizationUrl?.href;
  }

  /** The access and refresh tokens this session used lately (for redaction, never for output). */
  get recentTokens(): readonly string[] {
    return this.#recent;
  }

  async #challenge(
    status: number,
    challenge: ReturnType<typeof extractWWWAuthenticateParams>,
    hadToken: boolean,
  ): Promise<void> {
    const upgrade = status === 403;
    const scope = upgrade
      ? this.#upgradeScope(challenge.scope, (await this.#provider.tokens())?.scope)
      : challenge.scope;
    const result = await this.#run(async () => {
      // A rejected token may come from an authorization server the resource no longer uses.
      if (hadToken && !upgrade) await this.#provider.invalidateCredentials("discovery");
      this.#provider.skipTokens = upgrade;
      try {
        return await oauthAuthorize(this.#provider, {
          serverUrl: this.#s.serverUrl,
          resourceMetadataUrl: challenge.resourceMetadataUrl,
          scope,
          fetchFn: this.#s.authFetch,
        });
      } finally {
        this.#provider.skipTokens = false;
      }
    });
    if (result === "REDIRECT") throw this.#required();
  }

  /** The scope of a step-up: the challenge's and the granted ones; throws past the limit. */
  #upgradeScope(requested: string | undefined, granted: string | undefined): string | undefined {
    const key = [...new Set((requested ?? "").split(" ").filter(Boolean))].sort().join(" ");
    const count = (this.#upgrades.get(key) ?? 0) + 1;
    if (count > this.#s.maxScopeUpgrades) {
      throw new AuthorizationRequiredError(this.#s.serverId, {
        userId: this.#s.user || undefined,
        // The scope is the server's own text: it reaches the model, so it is not quoted here.
        reason: `the server still answers "insufficient_scope" (it asks for more access) after ${
          count - 1
        } authorizations; not asking again`,
      });
    }
    this.#upgrades.set(key, count);
    const had = (granted ?? this.#provider.lastScope ?? "").split(" ");
    return [...new Set([...had, ...key.split(" ")].filter(Boolean))].join(" ") || undefined;
  }

  #run(flow: () => Promise<"AUTHORIZED" | "REDIRECT">): Promise<"AUTHORIZED" | "REDIRECT"> {
    if (this.#running !== undefined) return this.#running;
    this.#provider.authorizationUrl = undefined;
    const running = flow().finally(() => {
      if (this.#running === running) this.#running = undefined;
    });
    this.#running = running;
    return running;
  }

  #required(reason?: string): AuthorizationRequiredError {
    const url = this.#provider.authorizationUrl;
    return new AuthorizationRequiredError(this.#s.serverId, {
      userId: this.#s.user || undefined,
      ...(url === undefined ? { reason: reason ?? "no authorization was started" } : {
        authorizationUrl: url.href,
      }),
    });
  }
}

function withBearer(init: RequestInit | undefined, token: string | undefined): RequestInit {
  const headers = new Headers(init?.headers);
  if (token !== undefined) headers.set("Authorization", `Bearer ${token}`);
  return { ...init, headers };
}

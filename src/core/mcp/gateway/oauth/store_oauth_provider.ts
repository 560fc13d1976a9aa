import type { KeyValueStore } from "../../../store/key_value_store.ts";
import { encodeBase64 } from "../../../base64.ts";
import {
  type AddClientAuthentication,
  createPrivateKeyJwtAuth,
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type OAuthTokens,
} from "../../mcp_sdk.ts";
import type { McpOAuthClient } from "../../mcp_server_config.ts";

/** Tokens as stored: the SDK's, stamped with their issuer and when they expire. */
export type StoredTokens = OAuthTokens & { issuer?: string; expires_at?: number };

/** An authorization started and not completed yet, under `["oauth", "pending", state]`. */
export interface PendingAuthorization {
  /** The user (`""` for a global server). */
  user: string;
  serverId: string;
  serverUrl: string;
  codeVerifier?: string;
  /** The issuer the authorization server's metadata names, for the `iss` check (RFC 9207). */
  issuer?: string;
  /** Whether the authorization server always sends `iss` in its redirect. */
  issRequired?: boolean;
  /** The authorization URL, for a first hop that sends the browser there. */
  authorizationUrl?: string;
  /**
   * The SHA-256 (hex) of the cookie the first hop set in the browser that started the
   * authorization; a callback must bring that cookie.
   */
  binding?: string;
}

/** What one provider needs. */
export interface StoreOAuthProviderSettings {
  store: KeyValueStore;
  /** The user (`""` for a global server). */
  user: string;
  serverId: string;
  serverUrl: string;
  redirectUrl: string;
  clientName: string;
  /** The Client ID Metadata Document URL. */
  clientMetadataUrl?: string;
  /** A pre-registered client. */
  client?: McpOAuthClient;
  /** Lifetime of a pending authorization. */
  stateTtlMs: number;
}

/**
 * The SDK's `OAuthClientProvider` for one (user, server), over a {@linkcode KeyValueStore}:
 * tokens and registrations live under `["oauth", kind, user, server id, server URL, issuer]`, so they are never
 * read for another user, server or authorization server; pending authorizations under
 * `["oauth", "pending", state]`, bound to the user and server. The SDK calls it from one flow at
 * a time (the session serialises flows).
 */
export class StoreOAuthProvider implements OAuthClientProvider {
  #s: StoreOAuthProviderSettings;
  /** The authorization server of the flow running now (from discovery). */
  #issuer?: string;
  #state?: string;
  #pending?: PendingAuthorization;
  /** Set during a step-up: stored tokens are not offered, so the SDK asks again. */
  skipTokens = false;
  /** The URL of the last authorization the flow started. */
  authorizationUrl?: URL;
  /** The scope of the last authorization started. */
  lastScope?: string;

  constructor(settings: StoreOAuthProviderSettings) {
    this.#s = settings;
  }

  get redirectUrl(): string | undefined {
    // A machine client has no user agent to send anywhere.
    return this.#machine ? undefined : this.#s.redirectUrl;
  }

  get #machine(): boolean {
    return this.#s.client?.grant === "client_credentials";
  }

  /** Signs a `private_key_jwt` assertion when the client has a private key. */
  get addClientAuthentication(): AddClientAuthentication | undefined {
    const client = this.#s.client;
    if (client?.privateKey === undefined) return undefined;
    return createPrivateKeyJwtAuth({
      issuer: client.clientId,
      subject: client.clientId,
      privateKey: client.privateKey,
      alg: client.signingAlgorithm ?? "ES256",
    });
  }

  /** The `client_credentials` request of a machine client; `undefined`: the authorization code. */
  prepareTokenRequest(scope?: string): URLSearchParams | undefined {
    if (!this.#machine) return undefined;
    return new URLSearchParams({ grant_type: "client_credentials", ...(scope ? { scope } : {}) });
  }

  get clientMetadataUrl(): string | undefined {
    return this.#s.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.#s.clientName,
      redirect_uris: [this.#s.redirectUrl],
      grant_types: this.#machine ? ["client_credentials"] : ["authorization_code", "refresh_token"],
      response_types: this.#machine ? [] : ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  /** Uses a pending authorization (its verifier) for the code exchange that completes it. */
  usePending(pending: PendingAuthorization): void {
    this.#pending = pending;
  }

  async state(): Promise<string> {
    this.#state = randomToken();
    const discovery = await this.discoveryState();
    const metadata = discovery?.authorizationServerMetadata as
      | { issuer?: string; authorization_response_iss_parameter_supported?: boolean }
      | undefined;
    this.#pending = {
      user: this.#s.user,
      serverId: this.#s.serverId,
      serverUrl: this.#s.serverUrl,
      ...(metadata?.issuer === undefined ? {} : { issuer: metadata.issuer }),
      issRequired: metadata?.authorization_response_iss_parameter_supported === true,
    };
    return this.#state;
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const stored = await this.#get<OAuthClientInformationMixed>("client");
    if (stored !== undefined) return stored;
    const client = this.#s.client;
    if (client === undefined) return undefined;
    return {
      client_id: client.clientId,
      ...(client.clientSecret === undefined ? {} : { client_secret: client.clientSecret }),
      ...(client.issuer === undefined ? {} : { issuer: client.issuer }),
      redirect_uris: [this.#s.redirectUrl],
    } as OAuthClientInformationMixed;
  }

  async saveClientInformation(information: OAuthClientInformationMixed): Promise<void> {
    const issuer = (information as { issuer?: string }).issuer ?? this.#issuer;
    if (issuer !== undefined) await this.#s.store.set(this.#key("client", issuer), information);
  }

  async tokens(): Promise<StoredTokens | undefined> {
    if (this.skipTokens) return undefined;
    return await this.#get<StoredTokens>("tokens");
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    const issuer = (tokens as { issuer?: string }).issuer ?? this.#issuer;
    if (issuer === undefined) return;
    this.authorizationUrl = undefined;
    const expiresIn = tokens.expires_in;
    await this.#s.store.set(this.#key("tokens", issuer), {
      ...tokens,
      ...(expiresIn === undefined ? {} : { expires_at: Date.now() + expiresIn * 1000 }),
    });
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    this.authorizationUrl = authorizationUrl;
    this.lastScope = authorizationUrl.searchParams.get("scope") ?? undefined;
    if (this.#state === undefined || this.#pending === undefined) return;
    this.#pending.authorizationUrl = authorizationUrl.href;
    await this.#s.store.set(["oauth", "pending", this.#state], this.#pending, {
      expireIn: this.#s.stateTtlMs,
    });
  }

  saveCodeVerifier(codeVerifier: string): void {
    if (this.#pending !== undefined) this.#pending.codeVerifier = codeVerifier;
  }

  codeVerifier(): string {
    const verifier = this.#pending?.codeVerifier;
    if (verifier === undefined) throw new Error("No authorization is pending for this server");
    return verifier;
  }

  async invalidateCredentials(
    scope: "all" | "client" | "tokens" | "verifier" | "discovery",
  ): Promise<void> {
    const issuer = this.#issuer;
    for (const kind of ["tokens", "client"] as const) {
      if ((scope === "all" || scope === kind) && issuer !== undefined) {
        await this.#s.store.delete(this.#key(kind, issuer));
      }
    }
    if (scope === "all" || scope === "discovery") {
      await this.#s.store.delete(this.#discoveryKey);
    }
  }

  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    checkIssuer(state);
    this.#issuer = state.authorizationServerUrl;
    await this.#s.store.set(this.#discoveryKey, state);
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    const state = await this.#s.store.get<OAuthDiscoveryState>(this.#discoveryKey);
    if (state !== undefined) this.#issuer = state.authorizationServerUrl;
    return state;
  }

  async #get<T>(kind: "client" | "tokens"): Promise<T | undefined> {
    if (this.#issuer === undefined) await this.discoveryState();
    const issuer = this.#issuer;
    return issuer === undefined ? undefined : await this.#s.store.get<T>(this.#key(kind, issuer));
  }

  /**
   * The server part of a key is its id and its URL: a user's own server and a global server
   * of the same id are apart unless they are the same endpoint, so one of them can never be
   * handed the other's tokens by naming the other's authorization server.
   */
  #key(kind: "client" | "tokens", issuer: string): string[] {
    return ["oauth", kind, this.#s.user, this.#s.serverId, this.#s.serverUrl, normalise(issuer)];
  }

  get #discoveryKey(): string[] {
    return ["oauth", "discovery", this.#s.user, this.#s.serverId, this.#s.serverUrl];
  }
}

/**
 * RFC 8414 §3.3: the metadata of an authorization server named by the resource's metadata must
 * name that server as its issuer. (Without resource metadata, the 2025-03-26 fallback, the
 * metadata comes from the MCP server's own origin and is not checked.)
 */
function checkIssuer(state: OAuthDiscoveryState): void {
  const issuer = (state.authorizationServerMetadata as { issuer?: string } | undefined)?.issuer;
  if (state.resourceMetadata === undefined || issuer === undefined) return;
  if (normalise(issuer) !== normalise(state.authorizationServerUrl)) {
    throw new Error(
      `The authorization server's metadata names issuer "${issuer}", not "${state.authorizationServerUrl}"; refusing it`,
    );
  }
}

/** An issuer URL without a trailing slash, parsed where it is a URL. */
export function normalise(issuer: string): string {
  // What is no URL is compared as written.
  const text = URL.parse(issuer)?.href ?? issuer;
  return text.endsWith("/") ? text.slice(0, -1) : text;
}

/** A value no one can guess: 32 random bytes, base64url (an OAuth `state`, a ticket). */
export function randomToken(): string {
  return encodeBase64(crypto.getRandomValues(new Uint8Array(32)), { url: true });
}

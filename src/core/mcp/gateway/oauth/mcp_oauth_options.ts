import type { KeyValueStore } from "../../../store/key_value_store.ts";

/** A client registered with an authorization server ahead of time, for one MCP server. */
export interface McpOAuthClient {
  /** The `client_id` the authorization server issued. */
  clientId: string;
  /** The secret of a confidential client; absent for a public client (`none`). */
  clientSecret?: string;
  /**
   * The authorization server the client is registered with (its issuer URL). When set, the
   * credentials are never presented to another one.
   */
  issuer?: string;
  /**
   * `client_credentials` for a machine client (no user, no browser: a service account, usually on
   * a global server); `authorization_code` (the default) for a user's own account.
   */
  grant?: "authorization_code" | "client_credentials";
  /**
   * A PKCS#8 PEM private key: the client authenticates with a signed JWT (`private_key_jwt`,
   * RFC 7523) instead of `clientSecret`.
   */
  privateKey?: string;
  /** The JWT's signing algorithm. Default: `"ES256"`. */
  signingAlgorithm?: string;
}

/**
 * The MCP authorization flow (OAuth 2.1 with PKCE) for servers that answer `401`: what
 * `new McpGateway({ oauth })` takes. Tokens, refresh tokens and client registrations are kept per
 * (user, server, authorization server) in `store`.
 */
export interface McpOAuthOptions {
  /**
   * The redirect URI: the host's endpoint that receives the authorization server's answer and
   * passes it to `gateway.completeAuthorization(userId, serverId, callbackUrl)`.
   */
  redirectUrl: string;
  /**
   * An `https` URL of a Client ID Metadata Document describing toolroute as a client, used as the
   * `client_id` where the authorization server supports it; dynamic registration otherwise.
   */
  clientMetadataUrl?: string;
  /** The client name shown on consent screens and sent in registrations. Default: `"toolroute"`. */
  clientName?: string;
  /** Pre-registered clients by server id; such a server is never registered dynamically. */
  clients?: Record<string, McpOAuthClient>;
  /**
   * Keeps tokens, registrations and pending authorizations. Default: a `MemoryStore` of this
   * gateway (lost on restart). Share one store between instances that serve the same users.
   */
  store?: KeyValueStore;
  /** How long an authorization URL can be completed, in milliseconds. Default: 600000. */
  stateTtlMs?: number;
  /** Access tokens are refreshed this long before they expire, in milliseconds. Default: 60000. */
  refreshBeforeMs?: number;
  /**
   * Most authorizations asked for the same scope after `403 insufficient_scope` (step-up) before
   * the gateway stops asking. Default: 2.
   */
  maxScopeUpgrades?: number;
}

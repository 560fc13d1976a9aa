import type { KeyValueStore } from "../../../store/key_value_store.ts";
import type { StoreKey } from "../../../store/encrypted_store.ts";
import type { McpOAuthClient } from "../../mcp_server_config.ts";

// A server entry names its client too; the type lives with the config (imports point one way).
export type { McpOAuthClient };

/**
 * The MCP authorization flow (OAuth 2.1 with PKCE) for servers that answer `401`: what
 * `new McpGateway({ oauth })` takes. Tokens, refresh tokens and client registrations are kept per
 * (user, server, authorization server) in `store`.
 */
export interface McpOAuthOptions {
  /**
   * The redirect URI: the host's endpoint that receives the authorization server's answer and
   * passes it to `oauth.complete(userId, serverId, callbackUrl)`.
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
  /**
   * Encrypts tokens, registrations and pending authorizations in `store` with AES-256-GCM: 32
   * random bytes, their base64, or an AES-GCM `CryptoKey` (see `EncryptedStore`).
   */
  storeKey?: StoreKey;
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

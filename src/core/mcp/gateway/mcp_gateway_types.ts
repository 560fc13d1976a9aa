import type { McpServerConfig } from "../mcp_server_config.ts";
import type { McpJsonSchemaValidator, McpTransportFactory } from "../mcp_transport.ts";
import type { McpOAuth } from "./oauth/mcp_oauth.ts";
import type { PinningOptions } from "./pin_store.ts";
import type { KeyValueStore } from "../../store/key_value_store.ts";

/** How a broken connection is retried: exponential backoff between attempts. */
export interface McpReconnectOptions {
  /** Delay before the first retry, in milliseconds. Default: 250. */
  initialDelayMs?: number;
  /** Longest delay between retries, in milliseconds. Default: 30000. */
  maxDelayMs?: number;
  /** Factor applied to the delay after each failed attempt. Default: 2. */
  factor?: number;
  /** Most connection attempts one call makes before it gives up. Default: 4. */
  maxAttemptsPerCall?: number;
}

/**
 * The state of one connection. `closed` also means "not connected yet": connections are lazy;
 * `connecting` is a server starting (or reconnecting), whose tools are not listed until it is ready.
 */
export type McpConnectionState = "connecting" | "ready" | "failed" | "closed";

/** The status of one server (global) or one user's server. */
export interface McpServerStatus {
  /** The server id. */
  id: string;
  /** The user, for a per-user server. */
  userId?: string;
  /** The connection state. */
  state: McpConnectionState;
  /** How many tools the server lists (the cached list). */
  tools: number;
  /** The last connection error, with configured secrets redacted. */
  lastError?: string;
  /** Failed connection attempts since the last success. */
  reconnectAttempts: number;
  /** The transport in use: `http` (Streamable HTTP), `sse`, or `custom` (from the factory). */
  transport?: "http" | "sse" | "custom";
  /**
   * The protocol version the connection speaks, once connected: `"2026-07-28"` (no session, no
   * `initialize`) or a 2025-era version such as `"2025-11-25"`.
   */
  protocol?: string;
  /** Tools withheld because their definitions changed since they were pinned (sorted). */
  withheld?: string[];
}

/** Something that happened to a gateway connection, for logs and metrics. */
export interface McpGatewayEvent {
  /**
   * - `connecting`: a connection attempt starts (a server starting, or reconnecting).
   * - `connected`: a connection is ready (`tools` holds the tool count).
   * - `connect_failed`: an attempt failed (`message` says why).
   * - `disconnected`: a ready connection was lost; the next use reconnects.
   * - `tools_changed`: the server's tool list was refreshed after `list_changed`, or a server that
   *   a request stopped waiting for (see `listWaitMs`) is ready.
   * - `closed`: a connection was closed (`reason`: `close`, `idle`, `evicted`, `removed`).
   * - `tool_withheld`: a tool's definition differs from its pin (`tool`; `message` says how).
   * - `tools_accepted`: `acceptToolChanges` re-pinned a server (`tools`: how many pins changed).
   * - `names_ignored`: a server's tool list kept by `toolNames` was not used (`message`: why).
   * - `names_unsaved`: a server's tool list could not be kept by `toolNames` (`message`: why).
   * - `unconfined`: a stdio server runs without its sandbox because bubblewrap is missing
   *   (`message`: what is unconfined and how to install bubblewrap); once per server.
   */
  type:
    | "connecting"
    | "connected"
    | "connect_failed"
    | "disconnected"
    | "tools_changed"
    | "closed"
    | "tool_withheld"
    | "tools_accepted"
    | "names_ignored"
    | "names_unsaved"
    | "unconfined";
  /** The server id. */
  serverId: string;
  /** The user, for a per-user server. */
  userId?: string;
  /** Details, secrets redacted. */
  message?: string;
  /** The tool count, for `connected` and `tools_changed`. */
  tools?: number;
  /** Why a connection was closed. */
  reason?: "close" | "idle" | "evicted" | "removed";
  /** The tool's name on the server, for `tool_withheld`. */
  tool?: string;
}

/** A server's request for input from the user during a call (MCP form elicitation). */
export interface McpElicitationRequest {
  /** The server asking. */
  serverId: string;
  /** The user of the connection, for per-user servers. */
  userId?: string;
  /** What the server asks, for a person to read. */
  message: string;
  /** The JSON Schema (flat object of primitives) of the answer. */
  requestedSchema: Record<string, unknown>;
}

/** The answer to an {@linkcode McpElicitationRequest}. */
export interface McpElicitationResult {
  /** `accept` with `content`, or `decline` / `cancel`. */
  action: "accept" | "decline" | "cancel";
  /** The answer, matching `requestedSchema`; schema defaults are filled in for missing fields. */
  content?: Record<string, string | number | boolean | string[]>;
}

/** What `new McpGateway` takes. */
export interface McpGatewayOptions {
  /** Global servers by id, shared by every request. */
  servers?: Record<string, McpServerConfig>;
  /**
   * Longest wait of one request (`expose`, a served `tools/list`) for servers that are still
   * connecting, in milliseconds: the tools of the servers ready by then are listed, the others are
   * reported in `missing` as starting and go on connecting; when one is ready, a `tools_changed`
   * event says so (`toolroute serve` sends its clients `notifications/tools/list_changed`).
   * Default: `Infinity`, each server's `connectTimeoutMs` (a host that lists again on
   * `tools_changed` sets a few seconds; `toolroute serve` uses 3000).
   */
  listWaitMs?: number;
  /** Deadline of a call without its own `timeoutMs`, in milliseconds. Default: 60000. */
  requestTimeoutMs?: number;
  /**
   * Deadline of connecting and listing tools, in milliseconds. Default: 10000. A server's own
   * `connectTimeoutMs` (in its config) replaces it for that server.
   */
  connectTimeoutMs?: number;
  /**
   * Hard deadline of a call whose server sends progress (each progress report restarts the
   * `requestTimeoutMs` deadline, up to this; only calls that carry a progress token can receive
   * progress, see `progressTokens`). Default: 4 × `requestTimeoutMs`.
   */
  maxTotalTimeoutMs?: number;
  /**
   * Which calls carry an MCP progress token, without which a server sends no progress and a
   * call's deadline cannot be extended. `"auto"` (default): calls whose progress someone listens
   * to (`onProgress`, or a `toolroute serve` client that sent its own token), the first call of
   * each tool on a connection, and every call of a tool that has reported progress on the
   * connection; any other call keeps the plain `requestTimeoutMs` deadline. `"always"`: every call
   * without its own `timeoutMs` (a token costs the server a few microseconds per call).
   */
  progressTokens?: "auto" | "always";
  /**
   * Lists a server's tools again when the cached list is older than this, in milliseconds.
   * Default: never (lists follow `notifications/tools/list_changed`). Useful on edge runtimes,
   * where a connection's event stream does not outlive the request that opened it.
   */
  toolListTtlMs?: number;
  /**
   * The router's result budget of this gateway's results, in characters (`n` is `n / 4` tokens),
   * where the router's own `resultBudget` gives none: a longer result keeps head and tail, and the
   * whole is kept for `read_result`. The gateway itself passes results through whole, bounded in
   * bytes by `maxResponseBytes` (HTTP) or the transport's message limit (stdio). Default: 100000.
   */
  maxResultChars?: number;
  /** Most decoded bytes of a result's images, audio and blobs; more is left out. Default: 16 MiB. */
  maxMediaBytes?: number;
  /** Most bytes of one HTTP response body; longer ones fail the call. Default: 64 MiB. */
  maxResponseBytes?: number;
  /**
   * Most characters of a remote tool's description (and of each description in its schemas),
   * after control and bidi characters are escaped; longer ones are cut with a visible marker.
   * Default: 4096.
   */
  maxDescriptionChars?: number;
  /**
   * Most characters (as JSON) of one server's tool list; the tools beyond it are dropped and
   * reported in `missing`. Default: 262144.
   */
  maxToolListChars?: number;
  /** Backoff of reconnections. */
  reconnect?: McpReconnectOptions;
  /** Idle time after which a per-user connection is closed, in milliseconds. Default: 600000. */
  userIdleMs?: number;
  /** Most open per-user connections; the least recently used is closed first. Default: 1000. */
  maxUserConnections?: number;
  /** Host names (`api.example.com`, `host:port`, `*.example.com`) servers may be at. */
  allowedHosts?: string[];
  /** The fetch of HTTP transports. Default: the global `fetch`. */
  fetch?: typeof fetch;
  /**
   * When a Streamable HTTP connection keeps a standing event stream (GET) open for server
   * notifications: `"session"` (default) only when the server gave a session id; `"always"` also
   * for stateless servers (one socket per connection, on both sides, for as long as it is open).
   * In the 2026-07-28 era the same holds for a `subscriptions/listen` stream: a global server's
   * connection opens one, a user's own connections only with `"always"`.
   */
  eventStream?: "session" | "always";
  /**
   * Validates structured tool output; default: the SDK's (ajv). Edge builds pass cfworker's. One
   * is shared by every server and user: give one that keeps each schema apart (cfworker's does;
   * a single ajv instance does not: the first schema of an `$id` stands for every later one).
   */
  jsonSchemaValidator?: McpJsonSchemaValidator;
  /** Makes transports for configs the core cannot serve (stdio); see `McpTransportFactory`. */
  transportFactory?: McpTransportFactory;
  /**
   * Answers servers that ask the user for input during a call. When set, the gateway declares the
   * `elicitation` capability (form mode, with schema defaults applied); when absent, servers are
   * told the client cannot elicit.
   */
  onElicitation?: (
    request: McpElicitationRequest,
    signal: AbortSignal,
  ) => McpElicitationResult | Promise<McpElicitationResult>;
  /**
   * Declares the `elicitation` capability to every server so that a request a server sends during
   * a call reaches the call's own `onElicitation` (`ToolSet#call` options; `toolroute serve`
   * relays it to its MCP client). A request that cannot be tied to one call (several calls in
   * flight on the connection, or none) goes to the gateway's `onElicitation`, else is cancelled.
   * Default: `false` (declared only with `onElicitation`).
   */
  relayElicitation?: boolean;
  /** Receives connection events; must not throw (a throw is ignored). */
  onEvent?: (event: McpGatewayEvent) => void;
  /**
   * The MCP authorization flow (`new McpOAuth({ redirectUrl })`) for HTTP servers configured
   * without an `Authorization` header: a server that answers `401` is reported in `missing` (the
   * text says the user must sign in and carries no URL; the host hands the person
   * `oauth.waiting(userId)`) until `oauth.complete()` is called with the redirect.
   * Global servers are authorized per user too, unless their `oauth` client is a
   * `client_credentials` service account.
   */
  oauth?: McpOAuth;
  /**
   * Tool pinning (trust on first use, fail closed): the first definition seen of each (user,
   * server, tool) is pinned by hash, and a later one that differs is withheld until
   * `acceptToolChanges`. A user's own servers' pins are that user's; for a global server a user
   * follows the server-wide pin (the first definition seen, or the operator's acceptance) until
   * accepting a change for themselves (`acceptToolChanges(id, { userId })`), which holds for that
   * user only. `false` turns it off. Default: on, pins kept in memory.
   */
  pinning?: boolean | PinningOptions;
  /**
   * Keeps each server's last known tool list in `store` (under `["tool-names", …]`), so names
   * outlive the process: after a restart, a server that is down (or not selected yet) still
   * takes part in naming with the list the last run saw, and no other server's tool is renamed.
   * A kept list only stands in for a server that has not answered yet (its current list always
   * wins), and one that is malformed or too long is ignored with a `names_ignored` event.
   * Default: lists kept in memory only.
   */
  toolNames?: { store: Pick<KeyValueStore, "get" | "set"> };
}

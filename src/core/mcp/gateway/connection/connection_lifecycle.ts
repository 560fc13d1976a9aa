import type { ToolLogEntry } from "../../../tool_source.ts";
import { abortable, delay } from "@std/async";
import { ConnectionFailures } from "./connection_failures.ts";
import { ToolListCache } from "./tool_list_cache.ts";
import { findAuthorizationRequired } from "../oauth/authorization_required_error.ts";
import { mcpErrorToToolError } from "../../mcp_call.ts";
import type {
  McpConnectionState,
  McpElicitationRequest,
  McpElicitationResult,
  McpServerStatus,
} from "../mcp_gateway_types.ts";
import type { Client, McpTool, ProtocolEra } from "../../mcp_sdk.ts";
import { refusedAsUnsupported } from "./era_verdicts.ts";
import type { McpTransport } from "../../mcp_transport.ts";
import {
  eraKey,
  openMcpClient,
  serverOf,
  StdioUnsupportedError,
  type TransportKind,
} from "./open_mcp_client.ts";
import type { ConnectionSettings } from "./connection_settings.ts";
import { listenForListChanges } from "./list_change_stream.ts";
import { Redactor } from "../calls/redactor.ts";
import { SessionExpiredError } from "../http/http_client_transport.ts";
import { RequestNotDeliveredError } from "../http/guarded_fetch.ts";
import {
  endParkedSession,
  type ParkedSession,
  parkedSessionOf,
  sessionParkable,
} from "./parked_session.ts";
import type { McpServerConfig } from "../../mcp_server_config.ts";

/**
 * The client side of one lazy connection to one MCP server (for one user, or global): the state
 * machine `closed → connecting → ready | failed`, reconnection with exponential backoff, the tool
 * list cached and refreshed on `notifications/tools/list_changed`, and parking (an idle
 * connection of a sessionless server lets its client go). Calls are `ServerConnection`'s.
 */
export abstract class ConnectionLifecycle extends ToolListCache {
  static #serials = 0;
  /** Unique per connection object, so caches never confuse two connections of one server. */
  readonly serial: number = ++ConnectionLifecycle.#serials;
  /**
   * Uses running now: calls, tool listings (which include connecting) and holds. A connection in
   * use is never closed by a pool for idleness or eviction.
   */
  inFlight = 0;
  /**
   * When the connection was last used (`performance.now()`, whole milliseconds: a small integer
   * is kept in the object itself, a fraction in a number box of its own per connection).
   */
  lastUsedAt: number = Math.floor(performance.now());
  #s: ConnectionSettings;
  /** Made from the config on use; a parked connection lets it go (see `park`). */
  #redact?: Redactor;
  #state: McpConnectionState = "closed";
  #era?: ProtocolEra;
  /**
   * The client built again from the kept era verdict, without a round trip (see `undelivered`).
   */
  #fromVerdict?: Client;
  /** Whether the client holds a `subscriptions/listen` stream (it is then never parked). */
  #listening = false;
  /** A parked 2025-era connection's session, to go on with on the next use (see `park`). */
  #parked?: ParkedSession;
  #opening?: Promise<Client>;
  #kind?: TransportKind;
  #protocol?: string;
  /** Failures since the last success; made on the first failure, dropped on success. */
  #failed?: ConnectionFailures;
  #disposed = false;

  /**
   * Creates the connection; nothing is opened until it is used.
   *
   * @param settings The server, its config and the gateway's settings.
   */
  constructor(settings: ConnectionSettings) {
    super();
    // A server's own deadline (a slow starter's) replaces the gateway's (the rest is inherited,
    // not copied: thousands of user connections share one settings object).
    const own = settings.config.connectTimeoutMs;
    this.#s = own === undefined
      ? settings
      : Object.assign(Object.create(settings) as ConnectionSettings, { connectTimeoutMs: own });
  }

  /**
   * Whether the connection is idle, ready and holds a client it can let go of, over Streamable
   * HTTP (no process), with no stream or listing of its own open: the next call builds a client
   * without a round trip, for a 2026-07-28 server from the kept discover verdict, for a 2025 one
   * on its session (see `sessionParkable`: not while it holds a standing event stream).
   */
  get parkable(): boolean {
    const client = this.client;
    return this.#kind === "http" && this.#state === "ready" && client !== undefined &&
      this.inFlight === 0 && !this.#listening && this.#opening === undefined &&
      !this.refreshing && (this.#era === "modern" || sessionParkable(client));
  }

  /**
   * Lets an idle connection's client go (see `parkable`; otherwise nothing happens). It stays
   * `ready` with its tool list, credentials and era verdict, and a 2025 one with its session
   * (left open on the server); the next use builds a client again.
   */
  park(): void {
    if (!this.parkable) return;
    const client = this.client!;
    if (this.#era === "legacy") {
      const parked = this.#parked = parkedSessionOf(client);
      // The shared copy of the version (the live client's was parsed per user).
      if (parked !== undefined) this.#protocol = parked.handshake.protocolVersion;
    }
    void this.#drop();
    this.#redact = undefined;
    this.parked();
  }

  /** Lets go of what the calls keep between them (rebuilt on the next call). */
  protected parked(): void {}

  /** The settings (for the listing and the call modules, see `CallingConnection`). */
  override get settings(): ConnectionSettings {
    return this.#s;
  }

  /** Keeps the connection's credentials out of errors and results. */
  get redactor(): Redactor {
    if (this.#redact === undefined) {
      const { oauth, serverId, userId, config } = this.#s;
      this.#redact = new Redactor(
        config,
        oauth === undefined ? undefined : () => oauth.secrets(serverId, userId),
      );
    }
    return this.#redact;
  }

  /** The server's config (its trust in the server's annotations among it). */
  get config(): McpServerConfig {
    return this.#s.config;
  }

  get state(): McpConnectionState {
    return this.#state;
  }

  /** The status for `McpGateway#status()`. */
  status(): McpServerStatus {
    return {
      id: this.#s.serverId,
      ...(this.#s.userId === undefined ? {} : { userId: this.#s.userId }),
      state: this.#state,
      tools: this.tools.length,
      ...(this.#failed === undefined ? {} : { lastError: this.#failed.message }),
      reconnectAttempts: this.#failed?.attempts ?? 0,
      ...(this.#kind === undefined ? {} : { transport: this.#kind }),
      ...(this.#protocol === undefined ? {} : { protocol: this.#protocol }),
    };
  }

  /**
   * Returns the tool list, connecting first when needed. Fails at once while a failed connection
   * waits for its next attempt, so exposure never waits out a backoff.
   *
   * @param signal Ends the wait (the connection attempt goes on for other callers).
   */
  async listTools(signal?: AbortSignal): Promise<readonly McpTool[]> {
    const release = this.hold();
    try {
      if (this.#state === "ready") {
        // A parked connection builds its client again only when the list is listed again.
        return await this.current(
          () => this.client ? Promise.resolve(this.client) : this.#open(),
          signal,
        );
      }
      const waiting = this.#state === "failed" && this.#opening === undefined;
      if (waiting) this.#failed?.throwIfWaiting();
      await (signal === undefined ? this.#open() : abortable(this.#open(), signal));
      return this.tools;
    } finally {
      release();
    }
  }

  /**
   * Marks the connection in use until the returned function is called (once), so that a pool
   * keeps it open between being handed out and being used.
   *
   * @returns Ends the use.
   */
  hold(): () => void {
    this.inFlight++;
    this.lastUsedAt = Math.floor(performance.now());
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.inFlight--;
      this.lastUsedAt = Math.floor(performance.now());
    };
  }

  /**
   * Closes the connection for good; later use fails with `upstream_unavailable`. A session is
   * ended on the server (`DELETE`), a parked one too.
   */
  async close(): Promise<void> {
    this.#disposed = true;
    await this.#opening?.catch(() => {});
    await this.#drop();
    const parked = this.#parked;
    this.#parked = undefined;
    if (parked !== undefined) await endParkedSession(this.#s, parked);
    this.#state = "closed";
  }

  /**
   * A ready client for a call: the one held, else one opened (with backoff, the configured
   * attempts) or built again for a parked connection.
   *
   * @param toolName The tool or method, for errors.
   * @param signal Ends the wait.
   */
  async readyClient(toolName: string, signal: AbortSignal): Promise<Client> {
    for (let tries = 1;; tries++) {
      if (this.#state === "ready" && this.client !== undefined) return this.client;
      try {
        const wait = this.#failed?.waitMs ?? 0;
        if (wait > 0 && this.#opening === undefined) await delay(wait, { signal });
        return await abortable(this.#open(), signal);
      } catch (error) {
        const stop = findAuthorizationRequired(error) !== undefined;
        if (stop || signal.aborted || this.#disposed || tries >= this.#s.reconnect.attempts) {
          throw this.redactor.toolError(mcpErrorToToolError(error, { toolName, signal }));
        }
      }
    }
  }

  #open(): Promise<Client> {
    if (this.#disposed) {
      return Promise.reject(new Error(`MCP server "${this.#s.serverId}" was closed`));
    }
    // Ready without a client: parked, so only the client is built again (no listing, no events).
    const reopen = this.#state === "ready";
    return this.#opening ??= this.#connect(reopen).finally(() => this.#opening = undefined);
  }

  /**
   * Opens the client: connects and lists the tools, or with `reopen` (a parked connection) only
   * builds the client again from the era verdict, quietly.
   */
  async #connect(reopen = false): Promise<Client> {
    await this.#drop();
    // A 2025 session is gone on use: held by the client built on it, or replaced by a new one.
    const resume = reopen ? this.#parked : undefined;
    this.#parked = undefined;
    if (!reopen) {
      this.#state = "connecting";
      this.#s.emit({ ...serverOf(this.#s), type: "connecting" });
    }
    let client: Client | undefined;
    try {
      const opened = await openMcpClient(this.#s, {
        preferred: this.#kind,
        elicit: (request, signal) => this.elicit(request, signal),
        onLog: (entry) => this.log(entry),
        onToolsChanged: (ready) => void this.refresh(ready, true),
        onClose: (ready, transport) => this.#lost(ready, transport),
        ...(resume === undefined ? {} : { resume }),
      });
      client = opened.client;
      this.#kind = opened.kind;
      this.#era = opened.era;
      this.#protocol = client.getNegotiatedProtocolVersion();
      const ready = client;
      if (!reopen && opened.era === "modern") {
        this.#listening = await listenForListChanges(ready, {
          settings: this.#s,
          onEnd: () => this.#lost(ready),
        });
      }
      const tools = reopen ? undefined : await this.listOf(ready);
      if (this.#disposed) throw new Error(`MCP server "${this.#s.serverId}" was closed`);
      this.client = ready;
      if (tools === undefined) return this.#fromVerdict = ready;
      this.keep(tools);
      this.#state = "ready";
      this.#failed = undefined;
      this.#s.emit({ ...serverOf(this.#s), type: "connected", tools: tools.length });
      return ready;
    } catch (error) {
      if (error instanceof StdioUnsupportedError) this.#disposed = true;
      // A server that changed era since (or a verdict that no longer fits) is asked again.
      this.#s.eras?.forget(eraKey(this.#s));
      await client?.close().catch(() => {});
      this.#state = this.#disposed ? "closed" : "failed";
      const failures = this.#failures();
      const thrown = failures.connectFailed(error);
      this.#s.emit({ ...serverOf(this.#s), type: "connect_failed", message: failures.message });
      throw thrown;
    }
  }

  #lost(client: Client, transport?: McpTransport): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.#parked = undefined;
    this.#listening = false;
    if (this.#disposed) return;
    this.#state = "failed";
    // A stdio server that exited says why (its exit code, a sandbox limit, its stderr).
    const reason = transport?.endReason?.();
    const failures = this.#failures();
    failures.lost(reason === undefined ? undefined : new Error(reason));
    this.#s.emit({ ...serverOf(this.#s), type: "disconnected", message: failures.message });
  }

  /**
   * Drops the client when a request on it was not delivered (see `CallingConnection`): a session
   * the server forgot, a request that never reached the server, or one refused unrun on a client
   * built from the era verdict (no round trip) because the verdict no longer fits (see
   * `refusedAsUnsupported`; the verdict is then forgotten). The next attempt may start at once,
   * after a request that never reached the server only after the first backoff delay.
   *
   * @param client The client the request went on.
   * @param error What the request threw (the SDK's or the transport's error).
   * @returns Settles once the client is dropped; `undefined` when the request was delivered.
   */
  undelivered(client: Client, error: unknown): Promise<void> | undefined {
    const stale = !(error instanceof SessionExpiredError) && client === this.#fromVerdict &&
      refusedAsUnsupported(error);
    if (stale) this.#s.eras?.forget(eraKey(this.#s));
    const expired = stale || error instanceof SessionExpiredError;
    if (!expired && !(error instanceof RequestNotDeliveredError)) return undefined;
    if (this.client !== client) return Promise.resolve();
    this.#lost(client);
    this.#failures().lost(error as Error, expired ? 0 : this.#s.reconnect.initialDelayMs);
    return client.close().catch(() => {});
  }

  async #drop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.#fromVerdict = undefined;
    this.#listening = false;
    await client?.close().catch(() => {});
  }

  #failures(): ConnectionFailures {
    return this.#failed ??= new ConnectionFailures(this.#s.reconnect, this.redactor);
  }

  protected listChanged(tools: number): void {
    this.#s.emit({ ...serverOf(this.#s), type: "tools_changed", tools });
  }

  /** Routes a server's elicitation request during a call (see `ServerConnection`). */
  protected abstract elicit(
    request: McpElicitationRequest,
    signal: AbortSignal,
  ): Promise<McpElicitationResult>;

  /** Routes a server's log message during a call (see `ServerConnection`). */
  protected abstract log(entry: ToolLogEntry): void;
}

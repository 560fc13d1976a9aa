import { ToolError as ToolErrorClass } from "../../../tool_error.ts";
import type { ToolError } from "../../../tool_error.ts";
import type { ToolContext, ToolLogEntry, UpstreamMethod } from "../../../tool_source.ts";
import { abortable, delay } from "@std/async";
import { Backoff } from "./backoff.ts";
import { callDeadline } from "../calls/call_deadline.ts";
import { RequestNotDeliveredError } from "../http/guarded_fetch.ts";
import { SessionExpiredError } from "../http/http_client_transport.ts";
import { listAllTools, toolPagesOf } from "../../list_all_tools.ts";
import type { SharedToolDefinitions } from "./shared_tool_definitions.ts";
import { toolListIndex } from "./tool_list_index.ts";
import { findAuthorizationRequired } from "../oauth/authorization_required_error.ts";
import {
  callMcpToolOutput,
  type McpCallOptions,
  mcpErrorToToolError,
  type McpResultParts,
  toolOutputOf,
} from "../../mcp_call.ts";
import { ProgressTokens } from "../calls/progress_tokens.ts";
import {
  awaitCreatedTask,
  callAsTask,
  type CreatedTask,
  createdTaskOf,
  type TaskCallHost,
  type TaskCallOptions,
} from "./task_call.ts";
import type { ToolOutput } from "../../../tool_output.ts";
import type {
  McpConnectionState,
  McpElicitationRequest,
  McpElicitationResult,
  McpGatewayEvent,
  McpServerStatus,
} from "../mcp_gateway_types.ts";
import { McpErrorCode, mcpErrorCodeOf } from "../../mcp_error_code.ts";
import {
  type Client,
  type McpTool,
  type ProtocolEra,
  ProtocolError,
  ProtocolErrorCode,
} from "../../mcp_sdk.ts";
import type { McpTransport } from "../../mcp_transport.ts";
import {
  eraKey,
  type OpenClientSettings,
  openMcpClient,
  type TransportKind,
} from "./open_mcp_client.ts";
import { Redactor } from "../calls/redactor.ts";
import { StdioUnsupportedError } from "./stdio_unsupported_error.ts";
import type { McpServerConfig } from "../../mcp_server_config.ts";

/** Everything one connection needs, resolved from the gateway's options. */
export interface ConnectionSettings extends OpenClientSettings {
  /** Deadline of a call without its own. */
  requestTimeoutMs: number;
  /** Age after which a ready connection's tool list is listed again on use. */
  toolListTtlMs?: number;
  /** Hard deadline of a call that reports progress; default: 4 × its deadline. */
  maxTotalTimeoutMs?: number;
  /** Which calls carry a progress token (see `ProgressTokens`); default: `"auto"`. */
  progressTokens?: "auto" | "always";
  /** Most decoded bytes of a result's media. */
  maxMediaBytes?: number;
  /** Backoff: first delay, longest delay, factor, attempts per call. */
  reconnect: { initialDelayMs: number; maxDelayMs: number; factor: number; attempts: number };
  /** Receives events (without server and user, which the connection adds). */
  emit: (event: McpGatewayEvent) => void;
  /** Shares tool definitions between the gateway's connections; absent: each keeps its own. */
  toolDefinitions?: SharedToolDefinitions;
}

/**
 * One lazy connection to one MCP server (for one user, or global), with the state machine
 * `closed → connecting → ready | failed`, reconnection with exponential backoff, and the tool list
 * cached and refreshed on `notifications/tools/list_changed`.
 */
export class ServerConnection {
  static #serials = 0;
  /** Unique per connection object, so caches never confuse two connections of one server. */
  readonly serial: number = ++ServerConnection.#serials;
  /**
   * Uses running now: calls, tool listings (which include connecting) and holds. A connection in
   * use is never closed by a pool for idleness or eviction.
   */
  inFlight = 0;
  /** When the connection was last used (`performance.now()`). */
  lastUsedAt: number = performance.now();
  #s: ConnectionSettings;
  #redact: Redactor;
  /** Keeps the connection's credentials out of every result (see `Redactor#result`); made on use. */
  #redactResultFn?: (result: McpResultParts) => McpResultParts;
  #state: McpConnectionState = "closed";
  /**
   * The SDK client; absent while closed or failed, and while parked: `ready` without a client is
   * an idle connection of a sessionless server that let its client go (see `park`).
   */
  #client?: Client;
  /** The era of the last connect. */
  #era?: ProtocolEra;
  /** Whether the client holds a `subscriptions/listen` stream (it is then never parked). */
  #listening = false;
  #opening?: Promise<Client>;
  #tools: readonly McpTool[] = [];
  #version = 0;
  #listedAt = 0;
  /** The one refresh running (per client), and whether a change was announced during it. */
  #refreshing?: { client: Client; done: Promise<void>; again: boolean };
  #kind?: TransportKind;
  /** The protocol version the last connect negotiated. */
  #protocol?: string;
  #lastError?: string;
  #backoff: Backoff;
  #disposed = false;
  /**
   * The contexts of the calls in flight, to route a server's requests and logs to their call
   * (made on the first call).
   */
  #calls?: Set<ToolContext>;
  /** The request options of calls without their own deadline (see `#callOptions`). */
  #callDefaults?: CallDefaults;
  /** Which calls carry a progress token, learned per tool. */
  #progress: ProgressTokens;

  /**
   * Creates the connection; nothing is opened until it is used.
   *
   * @param settings The server, its config and the gateway's settings.
   */
  constructor(settings: ConnectionSettings) {
    // A server's own deadline (a slow starter's) replaces the gateway's (the rest is inherited,
    // not copied: thousands of user connections share one settings object).
    const own = settings.config.connectTimeoutMs;
    this.#s = own === undefined
      ? settings
      : Object.assign(Object.create(settings) as ConnectionSettings, { connectTimeoutMs: own });
    const { oauth, serverId, userId } = settings;
    this.#redact = new Redactor(
      settings.config,
      oauth === undefined ? undefined : () => oauth.secrets(serverId, userId),
    );
    this.#backoff = new Backoff(settings.reconnect);
    this.#progress = new ProgressTokens(settings.progressTokens === "always");
  }

  /**
   * Whether the connection is idle, ready and holds a client it can let go of: the server is a
   * 2026-07-28 one over HTTP (no session, no process: the next call builds a client from the
   * kept discover verdict, without a round trip) and no stream or listing of its own is open.
   */
  get parkable(): boolean {
    return this.#era === "modern" && this.#kind === "http" && this.#state === "ready" &&
      this.#client !== undefined &&
      this.inFlight === 0 && !this.#listening && this.#opening === undefined &&
      this.#refreshing === undefined;
  }

  /**
   * Lets an idle connection's client go (see `parkable`; otherwise nothing happens). It stays
   * `ready` with its tool list, credentials and era verdict; the next use builds a client again.
   */
  park(): void {
    if (!this.parkable) return;
    void this.#drop();
  }

  /** The server's config (its trust in the server's annotations among it). */
  get config(): McpServerConfig {
    return this.#s.config;
  }

  /** The state. */
  get state(): McpConnectionState {
    return this.#state;
  }

  /** The cached tool list (empty until connected). */
  get tools(): readonly McpTool[] {
    return this.#tools;
  }

  /** Increases whenever the tool list changes. */
  get version(): number {
    return this.#version;
  }

  /** The status for `McpGateway#status()`. */
  status(): McpServerStatus {
    return {
      id: this.#s.serverId,
      ...(this.#s.userId === undefined ? {} : { userId: this.#s.userId }),
      state: this.#state,
      tools: this.#tools.length,
      ...(this.#lastError === undefined ? {} : { lastError: this.#lastError }),
      reconnectAttempts: this.#backoff.attempts,
      ...(this.#kind === undefined ? {} : { transport: this.#kind }),
      ...(this.#protocol === undefined ? {} : { protocol: this.#protocol }),
    };
  }

  /**
   * Returns the tool list, connecting first when needed. Fails at once while a failed connection
   * waits for its next attempt, so exposure never waits out a backoff.
   *
   * @param signal Ends the wait (the connection attempt goes on for other callers).
   * @returns The tools.
   */
  async listTools(signal?: AbortSignal): Promise<readonly McpTool[]> {
    const release = this.hold();
    try {
      return await this.#listTools(signal);
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
    this.lastUsedAt = performance.now();
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.inFlight--;
      this.lastUsedAt = performance.now();
    };
  }

  async #listTools(signal?: AbortSignal): Promise<readonly McpTool[]> {
    if (this.#state === "ready") {
      const ttl = this.#s.toolListTtlMs;
      if (ttl !== undefined && performance.now() - this.#listedAt >= ttl) {
        const refresh = this.#reopened().then((client) => this.#refresh(client, false));
        await (signal === undefined ? refresh : abortable(refresh, signal));
      }
      return this.#tools;
    }
    const wait = this.#backoff.waitMs;
    if (this.#state === "failed" && wait > 0 && this.#opening === undefined) {
      throw new Error(`${this.#lastError}; next attempt in ${Math.ceil(wait)} ms`);
    }
    await (signal === undefined ? this.#open() : abortable(this.#open(), signal));
    return this.#tools;
  }

  /**
   * Calls a tool under the call's deadline and signal. A call that cannot be delivered (server
   * down, session expired) reconnects with backoff and is sent again; a call that was delivered
   * is never sent twice.
   *
   * @param toolName The tool's name on the server.
   * @param args The arguments.
   * @param context The call's signal, deadline and progress listener.
   * @returns The result, content blocks as the server sent them (bounded).
   */
  async callTool(
    toolName: string,
    args: Record<string, unknown>,
    context: ToolContext,
  ): Promise<ToolOutput> {
    if (this.#runsAsTask(toolName)) {
      return await this.#callTask(
        toolName,
        context,
        (host, options) => callAsTask(host, { name: toolName, arguments: args }, options),
      );
    }
    let created: CreatedTask | undefined;
    this.#started(context);
    try {
      const client = this.#state === "ready" ? this.#client : undefined;
      if (client !== undefined && !context.signal.aborted) {
        const output = await this.#callReady(client, toolName, args, context);
        if (output !== NOT_SENT) return output;
        return await this.#callGuarded(toolName, args, context, 1);
      }
      return await this.#callGuarded(toolName, args, context, 0);
    } catch (error) {
      // A 2026-07-28 server may answer any call with a task (the Tasks extension).
      created = createdTaskOf(error);
      if (created === undefined) throw error;
    } finally {
      this.#ended(context);
    }
    const task = created;
    return await this.#callTask(
      toolName,
      context,
      (host, options) => awaitCreatedTask(host, task, options),
    );
  }

  /** Whether the listed tool must run as a task (`execution.taskSupport: "required"`). */
  #runsAsTask(toolName: string): boolean {
    const { taskNames } = toolListIndex(this.#tools);
    return taskNames.size > 0 && taskNames.has(toolName);
  }

  /**
   * Runs a tool's task (started by `callAsTask`, or a modern server's handle awaited by
   * `awaitCreatedTask`) under the call's deadline and signal; a connection lost while the task
   * runs is opened again and the same task is polled on.
   */
  async #callTask(
    toolName: string,
    context: ToolContext,
    run: (host: TaskCallHost, options: TaskCallOptions) => Promise<unknown>,
  ): Promise<ToolOutput> {
    this.#started(context);
    const deadline = callDeadline(toolName, context, this.#s);
    try {
      const result = await run(
        {
          ready: (signal) => this.#readyForCall(toolName, signal),
          undelivered: (error, client) => {
            const expired = error instanceof SessionExpiredError;
            if (expired || error instanceof RequestNotDeliveredError) {
              void this.#broken(client, error as Error, expired);
              return true;
            }
            // A poll is a read: one whose answer was lost may be asked again.
            const code = mcpErrorCodeOf(error);
            return code === McpErrorCode.ConnectionClosed || code === undefined;
          },
        },
        {
          signal: deadline.signal,
          requestTimeoutMs: this.#s.requestTimeoutMs,
          ttlMs: Math.max(60_000, deadline.hardMs),
        },
      );
      return toolOutputOf(result, toolName, this.#callOptions(context.timeoutMs));
    } catch (error) {
      throw this.#redact.toolError(
        mcpErrorToToolError(error, { toolName, signal: deadline.signal }),
      );
    } finally {
      deadline.dispose();
      this.#ended(context);
    }
  }

  // `inFlight` keeps the connection from being closed while a call runs; `lastUsedAt` is set
  // when it ends (one clock read per call, not two).
  #started(context: ToolContext): void {
    this.inFlight++;
    (this.#calls ??= new Set()).add(context);
  }

  #ended(context: ToolContext): void {
    const calls = this.#calls!;
    calls.delete(context);
    if (calls.size === 0) this.#calls = undefined; // an idle connection holds no empty set
    this.inFlight--;
    this.lastUsedAt = performance.now();
  }

  /**
   * The call options with the listed definition of a tool that declares an output schema: the
   * SDK client validates the result against it (other tools' options stay the shared ones).
   */
  #withDefinition<T extends object>(toolName: string, options: T): T {
    const definition = toolListIndex(this.#tools).withOutput.get(toolName);
    return definition === undefined ? options : { ...options, toolDefinition: definition };
  }

  /**
   * The common case, kept lean: a ready connection, the SDK's own request deadline (restarted by
   * progress up to the hard one) and the caller's signal, no timer or signal of ours. Returns
   * `NOT_SENT` when the request could not be delivered, so the guarded path reconnects.
   */
  async #callReady(
    client: Client,
    toolName: string,
    args: Record<string, unknown>,
    context: ToolContext,
  ): Promise<ToolOutput | typeof NOT_SENT> {
    const call = this.#readyCall(client, toolName, args, context);
    try {
      return await callMcpToolOutput(client, {
        toolName,
        args,
        context: this.#requestContext(call),
      }, this.#withDefinition(toolName, call.options));
    } catch (error) {
      return await this.#readyFailed(error as ToolError, call);
    }
  }

  /** A ready call's options: its deadline (made once per connection without its own), its signal. */
  #readyCall(
    client: Client,
    toolName: string,
    args: Record<string, unknown>,
    context: ToolContext,
  ): ReadyCall {
    return {
      client,
      toolName,
      args,
      context,
      options: context.timeoutMs === undefined
        ? this.#callDefaults ??= this.#callOptions(undefined)
        : this.#callOptions(context.timeoutMs),
      // The call's own signal (the router makes one per call): the SDK's listener ends with it.
      signal: context.signal,
    };
  }

  /** A ready call's signal, listener and trace; a progress token only where it can be of use. */
  #requestContext(call: ReadyCall): Pick<ToolContext, "onProgress" | "trace"> & {
    signal?: AbortSignal;
  } {
    const { context } = call;
    return {
      signal: call.signal,
      onProgress: this.#progress.listener(call.toolName, {
        onProgress: context.onProgress,
        extendable: call.options.resetTimeoutOnProgress,
      }),
      trace: context.trace,
    };
  }

  /**
   * What a ready call's failure becomes: the abort reason, `NOT_SENT` (after dropping the
   * connection) when the request was not delivered, a timeout naming the deadline that passed,
   * or the error with the connection's credentials redacted (thrown).
   */
  async #readyFailed(error: ToolError, call: ReadyCall): Promise<typeof NOT_SENT> {
    const { context, toolName, options } = call;
    if (context.signal.aborted) {
      const reason = context.signal.reason;
      throw reason instanceof ToolErrorClass
        ? reason
        : new ToolErrorClass("aborted", `The call to "${toolName}" was aborted`, {
          cause: error,
        });
    }
    const cause = error.cause;
    const expired = cause instanceof SessionExpiredError;
    if (expired || cause instanceof RequestNotDeliveredError) {
      await this.#broken(call.client, cause as Error, expired);
      return NOT_SENT;
    }
    if (error.code === "timeout" && mcpErrorCodeOf(cause) === McpErrorCode.RequestTimeout) {
      // The SDK's timeout error says in `data` which deadline passed.
      const data = (cause as { data?: { maxTotalTimeout?: unknown } }).data;
      const ms = data?.maxTotalTimeout !== undefined
        ? options.maxTotalTimeoutMs
        : options.timeoutMs;
      throw new ToolErrorClass("timeout", `Tool "${toolName}" did not finish within ${ms} ms`, {
        cause,
      });
    }
    throw this.#redact.toolError(error);
  }

  /** The request options of a ready call: its deadline, the hard one, the result bounds. */
  #callOptions(ownTimeoutMs: number | undefined): CallDefaults {
    const timeoutMs = ownTimeoutMs ?? this.#s.requestTimeoutMs;
    const hardMs = ownTimeoutMs ?? this.#s.maxTotalTimeoutMs ?? 4 * timeoutMs;
    return Object.freeze({
      timeoutMs,
      maxMediaBytes: this.#s.maxMediaBytes,
      resetTimeoutOnProgress: hardMs > timeoutMs,
      maxTotalTimeoutMs: hardMs,
      redact: this.#redactResult(),
    });
  }

  /**
   * Calls under a deadline of ours that also bounds connecting: a call that cannot be delivered
   * (server down, session expired) reconnects with backoff and is sent again, once; a call that
   * was delivered is never sent twice.
   */
  async #callGuarded(
    toolName: string,
    args: Record<string, unknown>,
    context: ToolContext,
    firstAttempt: number,
  ): Promise<ToolOutput> {
    const deadline = callDeadline(toolName, context, this.#s);
    const { signal, timeoutMs, hardMs, extendable } = deadline;
    // A progress token only where it can be of use: a listener, or progress that may extend.
    const onProgress = this.#progress.listener(toolName, {
      onProgress: context.onProgress,
      extendable,
    });
    try {
      for (let attempt = firstAttempt;; attempt++) {
        const client = await this.#readyForCall(toolName, signal);
        try {
          return await callMcpToolOutput(
            client,
            { toolName, args, context: { ...context, signal, onProgress } },
            this.#withDefinition(toolName, {
              timeoutMs,
              maxMediaBytes: this.#s.maxMediaBytes,
              resetTimeoutOnProgress: extendable,
              maxTotalTimeoutMs: hardMs,
              redact: this.#redactResult(),
            }),
          );
        } catch (error) {
          const cause = (error as ToolError).cause;
          const expired = cause instanceof SessionExpiredError;
          const notSent = expired || cause instanceof RequestNotDeliveredError;
          if (notSent) await this.#broken(client, cause as Error, expired);
          if (notSent && attempt === 0 && !signal.aborted) continue;
          throw this.#redact.toolError(error);
        }
      }
    } finally {
      deadline.dispose();
    }
  }

  /** Closes the connection for good; later use fails with `upstream_unavailable`. */
  /**
   * Sends a resources, prompts or completion request (what `toolroute serve` passes on), under
   * the server's request deadline, with the connection's credentials redacted from the answer
   * and from errors, as from a call's. A list of a feature the server did not declare answers
   * empty; any other request for it fails.
   *
   * @param method The request.
   * @param params Its parameters.
   * @param signal Aborts the request.
   * @returns The server's answer.
   */
  async request(
    method: UpstreamMethod,
    params: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    this.inFlight++;
    try {
      const client = await this.#readyForCall(method, signal);
      const feature = method === "completion/complete" ? "completions" : method.split("/")[0];
      const declared = client.getServerCapabilities() as Record<string, unknown> | undefined;
      if (declared?.[feature] === undefined) {
        if (method in EMPTY_LISTS) return { [EMPTY_LISTS[method]!]: [] };
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `The MCP server "${this.#s.serverId}" offers no ${feature}`,
        );
      }
      const answer = await sendRequest(client, { method, params }, {
        signal,
        timeout: this.#s.requestTimeoutMs,
      });
      return this.#redactResult()({ content: [], structuredContent: answer }).structuredContent!;
    } catch (error) {
      const message = this.#redact.text(error instanceof Error ? error.message : String(error));
      const code = mcpErrorCodeOf(error);
      throw new ProtocolError(code ?? ProtocolErrorCode.InternalError, message);
    } finally {
      this.inFlight--;
      this.lastUsedAt = performance.now();
    }
  }

  /** Closes the connection for good; later use fails with `upstream_unavailable`. */
  async close(): Promise<void> {
    this.#disposed = true;
    await this.#opening?.catch(() => {});
    await this.#drop();
    this.#state = "closed";
  }

  async #readyForCall(toolName: string, signal: AbortSignal): Promise<Client> {
    for (let tries = 1;; tries++) {
      if (this.#state === "ready" && this.#client !== undefined) return this.#client;
      try {
        const wait = this.#backoff.waitMs;
        if (wait > 0 && this.#opening === undefined) await delay(wait, { signal });
        return await abortable(this.#open(), signal);
      } catch (error) {
        const stop = findAuthorizationRequired(error) !== undefined;
        if (stop || signal.aborted || this.#disposed || tries >= this.#s.reconnect.attempts) {
          throw this.#redact.toolError(mcpErrorToToolError(error, { toolName, signal }));
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

  /** The client of a ready connection, built again when it was parked. */
  #reopened(): Promise<Client> {
    return this.#client === undefined ? this.#open() : Promise.resolve(this.#client);
  }

  /**
   * Opens the client: connects and lists the tools, or with `reopen` (a parked connection) only
   * builds the client again from the era verdict, quietly.
   */
  async #connect(reopen = false): Promise<Client> {
    await this.#drop();
    if (!reopen) {
      this.#state = "connecting";
      this.#s.emit({ ...this.#who(), type: "connecting" });
    }
    let client: Client | undefined;
    try {
      const opened = await openMcpClient(this.#s, this.#kind, {
        elicit: (request, signal) => this.#elicit(request, signal),
        onLog: (entry) => this.#log(entry),
      });
      client = opened.client;
      this.#kind = opened.kind;
      this.#era = opened.era;
      this.#protocol = client.getNegotiatedProtocolVersion();
      const ready = client;
      // The client lets go of its transport before `onclose`: kept here for its end reason.
      const transport = ready.transport as McpTransport | undefined;
      ready.onclose = () => this.#lost(ready, transport);
      ready.setNotificationHandler("notifications/tools/list_changed", () => {
        void this.#refresh(ready, true);
      });
      if (reopen && opened.era === "modern") {
        if (this.#disposed) throw new Error(`MCP server "${this.#s.serverId}" was closed`);
        this.#client = ready;
        return ready;
      }
      if (opened.era === "modern") await this.#listen(ready);
      this.#tools = this.#shared(
        await listAllTools(toolPagesOf(ready), { timeoutMs: this.#s.connectTimeoutMs }),
      );
      this.#listedAt = performance.now();
      if (this.#disposed) throw new Error(`MCP server "${this.#s.serverId}" was closed`);
      this.#client = ready;
      this.#version++;
      this.#state = "ready";
      this.#backoff.succeeded();
      this.#lastError = undefined;
      this.#s.emit({ ...this.#who(), type: "connected", tools: this.#tools.length });
      return ready;
    } catch (error) {
      if (error instanceof StdioUnsupportedError) this.#disposed = true;
      // A server that changed era since (or a verdict that no longer fits) is asked again.
      this.#s.eras?.forget(eraKey(this.#s));
      await client?.close().catch(() => {});
      this.#state = this.#disposed ? "closed" : "failed";
      this.#backoff.failed();
      // Waiting for the user to authorize: the next use may try again at once.
      const authorization = findAuthorizationRequired(error);
      if (authorization !== undefined) this.#backoff.retryIn(0);
      this.#lastError = authorization?.summary ?? describe(error, this.#redact);
      this.#s.emit({ ...this.#who(), type: "connect_failed", message: this.#lastError });
      throw authorization ?? new Error(this.#lastError);
    }
  }

  /**
   * In the 2026-07-28 era a server sends list changes only on a `subscriptions/listen` stream the
   * client opened (2025 servers send them unasked): one is opened when the server says its tool
   * list changes, before the tools are listed, so no change falls between. The SDK hands its
   * notifications to the same handler as in 2025. When the stream ends the connection counts as
   * lost, so the next use connects, lists and listens again; without a stream (refused, or not
   * offered) the list follows `toolListTtlMs`. A user's own connections listen only with
   * `eventStream: "always"`: a held stream costs each pooled connection a socket on both sides, as
   * a standing 2025 event stream to a stateless server would.
   */
  async #listen(client: Client): Promise<void> {
    if (this.#s.userId !== undefined && this.#s.eventStream !== "always") return;
    if (client.getServerCapabilities()?.tools?.listChanged !== true) return;
    try {
      const subscription = await client.listen({ toolsListChanged: true }, {
        timeout: this.#s.connectTimeoutMs,
      });
      this.#listening = true;
      void subscription.closed.then(() => this.#lost(client));
    } catch {
      // No stream: the tool list is listed again by age.
    }
  }

  /**
   * Lists the tools again, one listing at a time per client, so an older answer never replaces a
   * newer one. A change announced while a listing runs (`changed`) queues one more listing; a
   * TTL refresh just joins the running one.
   */
  #refresh(client: Client, changed: boolean): Promise<void> {
    const running = this.#refreshing;
    if (running?.client === client) {
      running.again ||= changed;
      return running.done;
    }
    const refresh = { client, done: Promise.resolve(), again: false };
    refresh.done = this.#relist(refresh).finally(() => {
      if (this.#refreshing === refresh) this.#refreshing = undefined;
    });
    this.#refreshing = refresh;
    return refresh.done;
  }

  async #relist(refresh: { client: Client; again: boolean }): Promise<void> {
    const { client } = refresh;
    do {
      refresh.again = false;
      try {
        const tools = this.#shared(
          await listAllTools(toolPagesOf(client), { timeoutMs: this.#s.connectTimeoutMs }),
        );
        if (this.#client !== client) return;
        this.#tools = tools;
        this.#listedAt = performance.now();
        this.#version++;
        this.#s.emit({ ...this.#who(), type: "tools_changed", tools: tools.length });
      } catch {
        // The list stays as it was; a lost connection is reported by onclose.
        if (this.#client !== client) return;
      }
    } while (refresh.again);
  }

  #lost(client: Client, transport?: McpTransport): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    this.#listening = false;
    if (this.#disposed) return;
    this.#state = "failed";
    // A stdio server that exited says why (its exit code, a sandbox limit, its stderr).
    const reason = transport?.endReason?.();
    this.#lastError = reason === undefined
      ? "The connection was lost"
      : describe(new Error(reason), this.#redact);
    this.#backoff.retryIn(0);
    this.#s.emit({ ...this.#who(), type: "disconnected", message: this.#lastError });
  }

  async #broken(client: Client, error: Error, retryNow: boolean): Promise<void> {
    if (this.#client !== client) return;
    this.#lost(client);
    this.#lastError = describe(error, this.#redact);
    if (!retryNow) this.#backoff.retryIn(this.#s.reconnect.initialDelayMs);
    await client.close().catch(() => {});
  }

  async #drop(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    this.#listening = false;
    await client?.close().catch(() => {});
  }

  #shared(tools: readonly McpTool[]): readonly McpTool[] {
    return this.#s.toolDefinitions?.share(tools) ?? tools;
  }

  /**
   * A server's elicitation request goes to the one call in flight that can relay it; when it
   * cannot be tied to one call (none, or several: it might belong to another person's), to the
   * gateway's `onElicitation`, else it is cancelled.
   */
  async #elicit(
    request: McpElicitationRequest,
    signal: AbortSignal,
  ): Promise<McpElicitationResult> {
    const calls = this.#calls ?? new Set<ToolContext>();
    const relays = [...calls].filter((call) => call.elicit !== undefined);
    if (relays.length === 1 && calls.size === 1) {
      return await relays[0].elicit!(
        { message: request.message, requestedSchema: request.requestedSchema },
        signal,
      );
    }
    const fallback = this.#s.onElicitation;
    return fallback === undefined ? CANCELLED : await fallback(request, signal);
  }

  /** A server's log message goes to the call in flight, when exactly one is. */
  #log(entry: ToolLogEntry): void {
    if (this.#calls?.size !== 1) return;
    const [call] = this.#calls;
    try {
      call.log?.(entry);
    } catch {
      // A listener's failure must not break the connection.
    }
  }

  #redactResult(): (result: McpResultParts) => McpResultParts {
    return this.#redactResultFn ??= (result) => this.#redact.result(result);
  }

  #who(): { serverId: string; userId?: string } {
    return this.#s.userId === undefined
      ? { serverId: this.#s.serverId }
      : { serverId: this.#s.serverId, userId: this.#s.userId };
  }
}

/** The request options of a ready call, made once per connection for the default deadline. */
type CallDefaults = Readonly<
  & Required<Omit<McpCallOptions, "maxResultChars" | "maxMediaBytes" | "toolDefinition">>
  & Pick<McpCallOptions, "maxMediaBytes" | "toolDefinition">
>;

/** A call on a ready connection, as `#callReady` and `#readyFailed` see it. */
interface ReadyCall {
  client: Client;
  toolName: string;
  args: Record<string, unknown>;
  context: ToolContext;
  options: CallDefaults;
  signal: AbortSignal | undefined;
}

/** What `#callReady` returns when its request could not be delivered. */
const NOT_SENT: unique symbol = Symbol("not sent");

const CANCELLED: McpElicitationResult = Object.freeze({ action: "cancel" as const });

/** The first line of an error's message, redacted before it is cut (a cut token is not found). */
function describe(error: unknown, redactor: Redactor): string {
  const message = redactor.text(error instanceof Error ? error.message : String(error));
  return message.replace(/^(TypeError|Error): /, "").split("\n", 1)[0].slice(0, 500);
}

/** The answer to a list of a feature a server does not offer: its list key, empty. */
const EMPTY_LISTS: Partial<Record<UpstreamMethod, string>> = {
  "resources/list": "resources",
  "resources/templates/list": "resourceTemplates",
  "prompts/list": "prompts",
};

/** Sends one resources, prompts or completion request through the client's own method. */
function sendRequest(
  client: Client,
  request: { method: UpstreamMethod; params: Record<string, unknown> },
  options: { signal: AbortSignal; timeout: number },
): Promise<Record<string, unknown>> {
  const params = request.params as never;
  switch (request.method) {
    case "resources/list":
      return client.listResources(params, options);
    case "resources/templates/list":
      return client.listResourceTemplates(params, options);
    case "resources/read":
      return client.readResource(params, options);
    case "prompts/list":
      return client.listPrompts(params, options);
    case "prompts/get":
      return client.getPrompt(params, options);
    case "completion/complete":
      return client.complete(params, options);
  }
}

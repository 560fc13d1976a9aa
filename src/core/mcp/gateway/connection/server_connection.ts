import { ToolError as ToolErrorClass } from "../../../tool_error.ts";
import type { ToolError } from "../../../tool_error.ts";
import type { ToolContext, ToolLogEntry } from "../../../tool_source.ts";
import { abortable, delay } from "@std/async";
import { Backoff } from "./backoff.ts";
import { callDeadline } from "../calls/call_deadline.ts";
import { RequestNotDeliveredError } from "../http/guarded_fetch.ts";
import { SessionExpiredError } from "../http/http_client_transport.ts";
import { listAllTools, toolPagesOf } from "../../list_all_tools.ts";
import type { SharedToolDefinitions } from "./shared_tool_definitions.ts";
import { findAuthorizationRequired } from "../oauth/authorization_required_error.ts";
import {
  callMcpToolOutput,
  type McpCallOptions,
  mcpErrorToToolError,
  type McpResultParts,
  toolOutputOf,
} from "../../mcp_call.ts";
import { ProgressTokens } from "../calls/progress_tokens.ts";
import { callAsTask } from "./task_call.ts";
import type { ToolOutput } from "../../../tool_output.ts";
import type {
  McpConnectionState,
  McpElicitationRequest,
  McpElicitationResult,
  McpGatewayEvent,
  McpServerStatus,
} from "../mcp_gateway_types.ts";
import { McpErrorCode, mcpErrorCodeOf } from "../../mcp_error_code.ts";
import type { Client, McpTool } from "../../mcp_sdk.ts";
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
  /** Most characters of a result. */
  maxResultChars: number;
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
  /** Keeps the connection's credentials out of every result (see `Redactor#result`). */
  #redactResult: (result: McpResultParts) => McpResultParts;
  #state: McpConnectionState = "closed";
  #client?: Client;
  /** The tools whose results the client validates (with an output schema), per list. */
  #withOutput?: WithOutput;
  /** The tools that run as tasks, per list. */
  #taskTools?: { tools: readonly McpTool[]; names: ReadonlySet<string> };
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
  /** The contexts of the calls in flight, to route a server's requests and logs to their call. */
  #calls = new Set<ToolContext>();
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
    this.#s = settings;
    const { oauth, serverId, userId } = settings;
    const redact = this.#redact = new Redactor(
      settings.config,
      oauth === undefined ? undefined : () => oauth.secrets(serverId, userId),
    );
    this.#redactResult = (result) => redact.result(result);
    this.#backoff = new Backoff(settings.reconnect);
    this.#progress = new ProgressTokens(settings.progressTokens === "always");
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
      if (ttl !== undefined && this.#client && performance.now() - this.#listedAt >= ttl) {
        const refresh = this.#refresh(this.#client, false);
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
    if (this.#runsAsTask(toolName)) return await this.#callTask(toolName, args, context);
    this.#started(context);
    try {
      const client = this.#state === "ready" ? this.#client : undefined;
      if (client !== undefined && !context.signal.aborted) {
        const output = await this.#callReady(client, toolName, args, context);
        if (output !== NOT_SENT) return output;
        return await this.#callGuarded(toolName, args, context, 1);
      }
      return await this.#callGuarded(toolName, args, context, 0);
    } finally {
      this.#ended(context);
    }
  }

  /** Whether the listed tool must run as a task (`execution.taskSupport: "required"`). */
  #runsAsTask(toolName: string): boolean {
    let tasks = this.#taskTools;
    if (tasks?.tools !== this.#tools) {
      const names = new Set<string>();
      for (const tool of this.#tools) {
        const execution = (tool as { execution?: { taskSupport?: unknown } }).execution;
        if (execution?.taskSupport === "required") names.add(tool.name);
      }
      tasks = this.#taskTools = { tools: this.#tools, names };
    }
    return tasks.names.size > 0 && tasks.names.has(toolName);
  }

  /**
   * Calls a tool that runs as a task (see `callAsTask`) under the call's deadline and signal; a
   * connection lost while the task runs is opened again and the same task is polled on.
   */
  async #callTask(
    toolName: string,
    args: Record<string, unknown>,
    context: ToolContext,
  ): Promise<ToolOutput> {
    this.#started(context);
    const deadline = callDeadline(
      toolName,
      context,
      this.#s.requestTimeoutMs,
      this.#s.maxTotalTimeoutMs,
    );
    try {
      const result = await callAsTask(
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
        { name: toolName, arguments: args },
        {
          signal: deadline.signal,
          requestTimeoutMs: this.#s.requestTimeoutMs,
          ttlMs: Math.max(60_000, deadline.hardMs),
        },
      );
      return toolOutputOf(result, toolName, this.#callOptions(context.timeoutMs));
    } catch (error) {
      throw this.#redact.toolError(mcpErrorToToolError(error, toolName, deadline.signal));
    } finally {
      deadline.dispose();
      this.#ended(context);
    }
  }

  // `inFlight` keeps the connection from being closed while a call runs; `lastUsedAt` is set
  // when it ends (one clock read per call, not two).
  #started(context: ToolContext): void {
    this.inFlight++;
    this.#calls.add(context);
  }

  #ended(context: ToolContext): void {
    this.#calls.delete(context);
    this.inFlight--;
    this.lastUsedAt = performance.now();
  }

  /** The tools with an output schema, made once per tool list. */
  #withOutputTools(): WithOutput {
    let withOutput = this.#withOutput;
    if (withOutput?.tools !== this.#tools) {
      const byName = new Map<string, McpTool>();
      for (const tool of this.#tools) {
        if (tool.outputSchema !== undefined) byName.set(tool.name, tool);
      }
      withOutput = this.#withOutput = { tools: this.#tools, byName };
    }
    return withOutput;
  }

  /**
   * The call options with the listed definition of a tool that declares an output schema: the
   * SDK client validates the result against it (other tools' options stay the shared ones).
   */
  #withDefinition<T extends object>(toolName: string, options: T): T {
    const definition = this.#withOutputTools().byName.get(toolName);
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
      return await callMcpToolOutput(
        client,
        toolName,
        args,
        this.#requestContext(call),
        this.#withDefinition(toolName, call.options),
      );
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
      maxResultChars: this.#s.maxResultChars,
      maxMediaBytes: this.#s.maxMediaBytes,
      resetTimeoutOnProgress: hardMs > timeoutMs,
      maxTotalTimeoutMs: hardMs,
      redact: this.#redactResult,
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
    const deadline = callDeadline(
      toolName,
      context,
      this.#s.requestTimeoutMs,
      this.#s.maxTotalTimeoutMs,
    );
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
            toolName,
            args,
            { ...context, signal, onProgress },
            this.#withDefinition(toolName, {
              timeoutMs,
              maxResultChars: this.#s.maxResultChars,
              maxMediaBytes: this.#s.maxMediaBytes,
              resetTimeoutOnProgress: extendable,
              maxTotalTimeoutMs: hardMs,
              redact: this.#redactResult,
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
   * Reads a resource of the server (an MCP Apps `ui://` view one of its tools names).
   *
   * @param uri The resource.
   * @param signal Aborts the read.
   * @returns The server's `resources/read` result.
   */
  async readResource(uri: string, signal: AbortSignal): Promise<unknown> {
    const client = await this.#readyForCall(uri, signal);
    return await client.readResource({ uri }, { signal });
  }

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
          throw this.#redact.toolError(mcpErrorToToolError(error, toolName, signal));
        }
      }
    }
  }

  #open(): Promise<Client> {
    if (this.#disposed) {
      return Promise.reject(new Error(`MCP server "${this.#s.serverId}" was closed`));
    }
    return this.#opening ??= this.#connect().finally(() => this.#opening = undefined);
  }

  async #connect(): Promise<Client> {
    await this.#drop();
    this.#state = "connecting";
    let client: Client | undefined;
    try {
      const opened = await openMcpClient({
        ...this.#s,
        elicit: (request, signal) => this.#elicit(request, signal),
        onLog: (entry) => this.#log(entry),
      }, this.#kind);
      client = opened.client;
      this.#kind = opened.kind;
      this.#protocol = client.getNegotiatedProtocolVersion();
      const ready = client;
      // The client lets go of its transport before `onclose`: kept here for its end reason.
      const transport = ready.transport as McpTransport | undefined;
      ready.onclose = () => this.#lost(ready, transport);
      ready.setNotificationHandler("notifications/tools/list_changed", () => {
        void this.#refresh(ready, true);
      });
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
    await client?.close().catch(() => {});
  }

  #shared(tools: McpTool[]): readonly McpTool[] {
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
    const relays = [...this.#calls].filter((call) => call.elicit !== undefined);
    if (relays.length === 1 && this.#calls.size === 1) {
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
    if (this.#calls.size !== 1) return;
    const [call] = this.#calls;
    try {
      call.log?.(entry);
    } catch {
      // A listener's failure must not break the connection.
    }
  }

  #who(): { serverId: string; userId?: string } {
    return this.#s.userId === undefined
      ? { serverId: this.#s.serverId }
      : { serverId: this.#s.serverId, userId: this.#s.userId };
  }
}

/** The request options of a ready call, made once per connection for the default deadline. */
/** The tools of a list with an output schema, whose results the SDK client validates. */
interface WithOutput {
  tools: readonly McpTool[];
  byName: ReadonlyMap<string, McpTool>;
}

type CallDefaults = Readonly<
  & Required<Omit<McpCallOptions, "maxMediaBytes" | "toolDefinition">>
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

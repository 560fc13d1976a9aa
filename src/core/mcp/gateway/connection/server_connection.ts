import type { ToolContext, ToolLogEntry, UpstreamMethod } from "../../../tool_source.ts";
import type { ToolOutput } from "../../../tool_output.ts";
import type { McpInputAnswerer, McpResultParts } from "../../mcp_call.ts";
import {
  type ProgressCall,
  type ProgressListener,
  ProgressTokens,
} from "../calls/progress_tokens.ts";
import { redactedEntry, redactedProgress } from "../calls/redactor.ts";
import {
  type CallDefaults,
  callGuarded,
  type CallingConnection,
  NOT_SENT,
  readyFailed,
  type ToolCall,
  withDefinition,
} from "./guarded_call.ts";
import type { ToolError } from "../../../tool_error.ts";
import { callMcpToolOutput } from "../../mcp_call.ts";
import type { Client } from "../../mcp_sdk.ts";
import { callTask } from "./task_call.ts";
import { createdTaskOf } from "./task_answers.ts";
import { sendUpstreamRequest } from "./upstream_request.ts";
import type { McpElicitationRequest, McpElicitationResult } from "../mcp_gateway_types.ts";
import { ConnectionLifecycle } from "./connection_lifecycle.ts";
import { relaysQuestions, serverOf } from "./open_mcp_client.ts";

/**
 * One lazy connection to one MCP server (for one user, or global): its calls and requests, made
 * on the client its {@linkcode ConnectionLifecycle} keeps (connecting, reconnecting with backoff,
 * the tool list, parking), with a server's requests and logs during a call routed to that call.
 */
export class ServerConnection extends ConnectionLifecycle implements CallingConnection {
  /** Keeps the connection's credentials out of every result (see `Redactor#result`); made on use. */
  #redactResultFn?: (result: McpResultParts) => McpResultParts;
  /**
   * The contexts of the calls in flight, to route a server's requests and logs to their call:
   * the one call's context itself (nearly always), a set only while several run at once, so a
   * run of calls one after another makes no set per call and an idle connection holds none.
   */
  #calls?: ToolContext | Set<ToolContext>;
  /** The request options of calls without their own deadline (see `callOptions`). */
  #callDefaults?: CallDefaults;
  /**
   * What the gateway's routing reaches this connection through (its callee: pin check and span),
   * made on the first call and held exactly as long as the connection.
   */
  callee?: object;
  /** Which calls carry a progress token, learned per tool; made on use (see `parked`). */
  #progress?: ProgressTokens;

  /**
   * The progress listener to give a call (a token is sent exactly when it is defined; see
   * {@linkcode ProgressTokens}): the caller's own gets each message without the connection's
   * credentials, as a result is.
   *
   * @param toolName The tool's name on the server.
   * @param call The caller's listener, if any, and whether progress may extend the deadline.
   * @returns The listener, or `undefined` (no token).
   */
  progressListener(toolName: string, call: ProgressCall): ProgressListener | undefined {
    const tokens = this.#progress ??= new ProgressTokens(
      this.settings.progressTokens === "always",
    );
    return tokens.listener(toolName, {
      onProgress: redactedProgress(this.redactor, call.onProgress),
      extendable: call.extendable,
    });
  }

  /**
   * A parked connection keeps no call options: they are made again on the next call. Nor its
   * progress policy, unless a tool reported progress: the rest is spent probes, and the next
   * call of a tool probes again (one token more per idle spell, not an object per idle user).
   */
  protected override parked(): void {
    this.#callDefaults = undefined;
    this.#redactResultFn = undefined;
    if (this.#progress?.learned === false) this.#progress = undefined;
  }

  /**
   * The request options of a call: its deadline, the hard one, the result bounds; one frozen
   * object, made once, for every call without a deadline of its own.
   *
   * @param ownTimeoutMs The call's own deadline, if any.
   */
  callOptions(ownTimeoutMs: number | undefined): CallDefaults {
    if (ownTimeoutMs === undefined && this.#callDefaults !== undefined) return this.#callDefaults;
    const timeoutMs = ownTimeoutMs ?? this.settings.requestTimeoutMs;
    const hardMs = ownTimeoutMs ?? this.settings.maxTotalTimeoutMs ?? 4 * timeoutMs;
    const options: CallDefaults = Object.freeze({
      timeoutMs,
      maxMediaBytes: this.settings.maxMediaBytes,
      resetTimeoutOnProgress: hardMs > timeoutMs,
      maxTotalTimeoutMs: hardMs,
      redact: this.#redactResult(),
    });
    if (ownTimeoutMs === undefined) this.#callDefaults = options;
    return options;
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
    const call = { toolName, args, context };
    this.#started(context);
    try {
      // A listed tool that must run as a task (`execution.taskSupport: "required"`).
      if (this.index.taskNames.has(toolName)) return await callTask(this, call);
      // Set only while ready (and not parked): a property read, no code of another file.
      const client = this.client;
      if (client !== undefined && !context.signal.aborted) {
        const output = await this.#callReady(call, client);
        if (output !== NOT_SENT) return output;
        return await callGuarded(this, { ...call, firstAttempt: 1 });
      }
      return await callGuarded(this, { ...call, firstAttempt: 0 });
    } catch (error) {
      // A 2026-07-28 server may answer any call with a task (the Tasks extension).
      const created = createdTaskOf(error);
      if (created === undefined) throw error;
      return await callTask(this, { ...call, created });
    } finally {
      this.#ended(context);
    }
  }

  /**
   * The common case, kept lean (here, not in `guarded_call.ts`, so a call runs in few files): a
   * ready client, the SDK's own request deadline (restarted by progress up to the hard one) and
   * the caller's signal, no timer or signal of ours, and no async frame. Returns `NOT_SENT` when
   * the request could not be delivered (after dropping the client), so that `callGuarded` sends
   * it once more.
   */
  #callReady(call: ToolCall, client: Client): Promise<ToolOutput | typeof NOT_SENT> {
    const { toolName, args, context } = call;
    const options = this.callOptions(context.timeoutMs);
    let output: Promise<ToolOutput>;
    try {
      output = callMcpToolOutput(client, {
        toolName,
        args,
        context: {
          // The call's own signal (the router makes one per call): the SDK's listener ends with it.
          signal: context.signal,
          // A progress token only where it can be of use.
          onProgress: this.progressListener(toolName, {
            onProgress: context.onProgress,
            extendable: options.resetTimeoutOnProgress,
          }),
          trace: context.trace,
          answerInput: this.inputAnswerer(context),
        },
      }, withDefinition(this.index, toolName, options));
    } catch (error) {
      output = Promise.reject(error);
    }
    return output.catch((error) =>
      readyFailed(this, { ...call, client, options, error: error as ToolError })
    );
  }

  // `inFlight` keeps the connection from being closed while a call runs; `lastUsedAt` is set
  // when it ends (one clock read per call, not two).
  #started(context: ToolContext): void {
    this.inFlight++;
    const calls = this.#calls;
    if (calls === undefined) this.#calls = context;
    else if (calls instanceof Set) calls.add(context);
    else if (calls !== context) this.#calls = new Set([calls, context]);
  }

  #ended(context: ToolContext): void {
    const calls = this.#calls;
    if (calls === context) this.#calls = undefined;
    else if (calls instanceof Set) {
      calls.delete(context);
      if (calls.size <= 1) this.#calls = calls.values().next().value;
    }
    this.inFlight--;
    this.lastUsedAt = Math.floor(performance.now());
  }

  /**
   * The context of the one call in flight, when it is the connection's only use: a listing or a
   * resources, prompts or completion request in flight (another user's, on a shared connection)
   * may be what a server's question or log belongs to (in the 2026-07-28 era it comes in that
   * request's own `input_required` answer).
   */
  #only(): ToolContext | undefined {
    const calls = this.#calls;
    return calls instanceof Set || this.inFlight !== 1 ? undefined : calls;
  }

  /**
   * The answerer of one call's own 2026-07-28 `input_required` questions: each goes to that call
   * (see `answerInput`), whichever other calls share the connection. `undefined` where the
   * connection relays no question (it declares no elicitation).
   */
  inputAnswerer(call: ToolContext): McpInputAnswerer | undefined {
    const settings = this.settings;
    if (!relaysQuestions(settings)) return undefined;
    return (params, signal) => {
      const { message, requestedSchema } = params;
      return this.answerInput(call, {
        request: {
          ...serverOf(settings),
          message: typeof message === "string" ? message : "",
          requestedSchema: requestedSchema !== null && typeof requestedSchema === "object"
            ? requestedSchema as Record<string, unknown>
            : {},
        },
        signal: signal ?? call.signal,
      });
    };
  }

  /** Sends a resources, prompts or completion request: see {@linkcode sendUpstreamRequest}. */
  request(
    method: UpstreamMethod,
    params: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    return sendUpstreamRequest(this, { method, params, signal });
  }

  /**
   * A server's elicitation request goes to the one call in flight that can relay it; when it
   * cannot be tied to one call (none, or several: it might belong to another person's), to the
   * gateway's `onElicitation`, else it is cancelled.
   */
  protected async elicit(
    request: McpElicitationRequest,
    signal: AbortSignal,
  ): Promise<McpElicitationResult> {
    return await this.answerInput(this.#only(), { request, signal });
  }

  /**
   * Answers a server's input request on behalf of one call: relayed to that call when it can
   * relay, else to the gateway's `onElicitation`, else cancelled. A task's input requests come
   * here with the call that started the task (see `callTask`), never another user's call.
   *
   * @param call The call the request belongs to, or `undefined` when none can be told.
   * @param asked The request and the signal that ends it.
   */
  async answerInput(
    call: ToolContext | undefined,
    asked: { request: McpElicitationRequest; signal: AbortSignal },
  ): Promise<McpElicitationResult> {
    const { signal } = asked;
    // Shown to a person (or the host): without the connection's credentials, as a result is.
    const request = {
      ...asked.request,
      message: this.redactor.text(asked.request.message),
      requestedSchema: this.redactor.value(asked.request.requestedSchema),
    };
    if (call?.elicit !== undefined) {
      return await call.elicit(
        { message: request.message, requestedSchema: request.requestedSchema },
        signal,
      );
    }
    const fallback = this.settings.onElicitation;
    return fallback === undefined ? CANCELLED : await fallback(request, signal);
  }

  /** A server's log message goes to the call in flight, when exactly one is. */
  protected log(entry: ToolLogEntry): void {
    const call = this.#only();
    if (call?.log === undefined) return;
    try {
      // The connection's credentials are kept out of a log message as out of a result: it goes
      // to the person behind the call (a serve client), who must not see a global server's key.
      call.log(redactedEntry(this.redactor, entry));
    } catch {
      // A listener's failure must not break the connection.
    }
  }

  #redactResult(): (result: McpResultParts) => McpResultParts {
    if (this.#redactResultFn === undefined) {
      // The redactor itself, not the getter, so a result's redaction runs no code of the base.
      const redactor = this.redactor;
      this.#redactResultFn = (result) => redactor.result(result);
    }
    return this.#redactResultFn;
  }
}

const CANCELLED: McpElicitationResult = Object.freeze({ action: "cancel" as const });

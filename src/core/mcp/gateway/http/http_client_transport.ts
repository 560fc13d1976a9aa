import { type BodyEnd, GuardedFetch } from "./guarded_fetch.ts";
import { requestScopedFetch } from "./request_scoped_fetch.ts";
import { directRequest } from "../direct/direct_request.ts";
import type { DirectRequestHost } from "../direct/direct_request_host.ts";
import { DeadlineTimer } from "../../../deadline_timer.ts";
import type { McpCallRequestOptions } from "../../mcp_call.ts";
import {
  type JSONRPCMessage,
  SdkErrorCode,
  SdkHttpError,
  SSEClientTransport,
  SseError,
  StreamableHTTPClientTransport,
  type Transport,
  type TransportSendOptions,
} from "../../mcp_sdk.ts";
import { McpErrorCode } from "../../mcp_error_code.ts";
import type { McpJsonRpcMessage, McpTransport } from "../../mcp_transport.ts";

/** The server forgot the session (HTTP 404): the request was not processed. */
export class SessionExpiredError extends Error {
  /**
   * Creates the error.
   *
   * @param message What failed.
   */
  constructor(message = "The server's session expired") {
    super(message);
    this.name = "SessionExpiredError";
  }
}

/** Options of {@linkcode HttpClientTransport}. */
export interface HttpClientTransportOptions {
  /** The MCP endpoint. */
  url: URL;
  /** Headers of every request, for this connection only. */
  headers?: Record<string, string>;
  /** Streamable HTTP or the older HTTP+SSE transport. */
  kind: "http" | "sse";
  /** The fetch to use. */
  fetch?: typeof fetch;
  /** The host allowlist. */
  allowedHosts?: readonly string[];
  /** Most bytes of one response body. */
  maxBodyBytes: number;
  /**
   * When Streamable HTTP keeps a standing event stream (GET) open: `"session"` (default) only
   * once the server gave a session id, `"always"` also for a stateless server.
   */
  eventStream?: "session" | "always";
}

type Inner = StreamableHTTPClientTransport | SSEClientTransport;

/**
 * The SDK's HTTP client transports with what a gateway needs on top: a guarded fetch (hosts,
 * redirects, body limit, bodies cancelled on close), requests that fail at once when their
 * response stream breaks, a lost event stream reported as a closed connection, and HTTP 404 on a
 * session reported as {@linkcode SessionExpiredError}.
 */
export class HttpClientTransport implements McpTransport {
  /** Set by the client. */
  onclose?: () => void;
  /** Set by the client. */
  onerror?: (error: Error) => void;
  /** Set by the client. */
  onmessage?: (message: McpJsonRpcMessage, extra?: unknown) => void;
  #inner: Inner;
  #guard: GuardedFetch;
  #pending = new Set<unknown>();
  /**
   * Parse errors not yet attributed to a request. One the SDK also throws from `send()` (a JSON
   * answer) is that request's. Otherwise the SDK does not say which stream it came on, so each
   * explains the next request whose body ends unanswered; a body end with nothing unanswered
   * (another request's) leaves them for the request they belong to.
   */
  #malformed = new Set<Error>();
  /** Requests answered by a whole JSON body: the SDK has read all of it when `send()` returns. */
  #answeredWhole = new Set<unknown>();
  #closed = false;
  #started = false;
  #maxBodyBytes: number;
  #options: HttpClientTransportOptions;
  /** Direct requests in flight, by id: their answer may come on the standing stream. */
  #direct = new Map<unknown, (message: McpJsonRpcMessage) => void>();
  /**
   * Ids of direct requests: a range the SDK client's counter (from 0, one per request of this
   * connection) does not reach in practice, 2^29 on. Below 2^30 an id is a small integer (Smi) in
   * V8, so the answer's `JSON.parse` (ours, and the SDK server's of the request) stays on the fast
   * number path: 0.57 µs against 1.21 µs for the answer with an id of 2^31 (200 000 parses).
   */
  #directIds = 2 ** 29;
  #protocolVersion?: string;
  /** The headers of direct requests, made once per session. */
  #headers?: { session: string | undefined; post: Record<string, string> };
  #host?: DirectRequestHost;
  /** The deadlines of direct requests, on one timer. */
  #deadlines = new DeadlineTimer();

  /**
   * Creates the transport; `start()` opens it.
   *
   * @param options Endpoint, headers, kind, fetch, allowlist and body limit.
   */
  constructor(options: HttpClientTransportOptions) {
    this.#maxBodyBytes = options.maxBodyBytes;
    this.#options = options;
    this.#guard = new GuardedFetch({
      // Kept connections outlive the request that opened them on edge runtimes.
      fetch: requestScopedFetch(options.fetch),
      allowedHosts: options.allowedHosts,
      maxBodyBytes: options.maxBodyBytes,
      onWholeJson: (ids) => {
        for (const id of ids) this.#answeredWhole.add(id);
      },
      onPostBodyEnd: (ids, end, resumable) => {
        // A stream with event ids is resumed by the SDK (GET with Last-Event-ID); if that fails,
        // its retries run out and the connection is reported lost, failing the call then.
        if (!resumable || end === "too_large") setTimeout(() => this.#bodyEnded(ids, end), 0);
      },
    });
    const requestInit = { headers: { ...options.headers } };
    const guarded = this.#guard.fetch;
    // A stateless server (no session id) has no session to address notifications to, so a
    // standing stream would only hold a socket per connection on both sides. It is answered here
    // as a server without one answers (405); tool lists then follow `toolListTtlMs`.
    const fetch: typeof globalThis.fetch = (input, init) =>
      options.kind === "http" && options.eventStream !== "always" && init?.method === "GET" &&
        this.sessionId === undefined && !new Headers(init.headers).has("last-event-id")
        ? Promise.resolve(new Response(null, { status: 405 }))
        : guarded(input, init);
    this.#inner = options.kind === "http"
      ? new StreamableHTTPClientTransport(options.url, {
        fetch,
        requestInit,
        // Resumes broken streams (the server's `retry` wins); when retries run out the connection
        // is reported lost and the next call reconnects with the gateway's own backoff.
        reconnectionOptions: {
          maxRetries: 2,
          initialReconnectionDelay: 500,
          maxReconnectionDelay: 2000,
          reconnectionDelayGrowFactor: 2,
        },
      })
      : new SSEClientTransport(options.url, {
        fetch,
        requestInit,
        eventSourceInit: { fetch },
      });
    this.#inner.onmessage = (message: JSONRPCMessage, extra?: unknown) => {
      const { id } = message as { id?: unknown };
      if (id !== undefined && !("method" in message)) {
        const direct = this.#direct.get(id);
        if (direct !== undefined) return direct(message as McpJsonRpcMessage);
        this.#pending.delete(id);
      }
      this.onmessage?.(message as McpJsonRpcMessage, extra);
    };
    this.#inner.onerror = (error: Error) => this.#innerError(error);
    this.#inner.onclose = () => {};
  }

  /** The session id, once the server gave one. */
  get sessionId(): string | undefined {
    return this.#inner instanceof StreamableHTTPClientTransport ? this.#inner.sessionId : undefined;
  }

  /** Opens the transport. */
  async start(): Promise<void> {
    await this.#inner.start();
    this.#started = true;
  }

  /**
   * Sends a message; a request is tracked until its response arrives or its stream breaks.
   *
   * @param message The JSON-RPC message.
   * @param options The SDK's send options.
   */
  async send(message: McpJsonRpcMessage, options?: unknown): Promise<void> {
    const id = "method" in message ? message.id : undefined;
    if (id !== undefined) this.#pending.add(id);
    try {
      await (this.#inner as Transport).send(
        message as JSONRPCMessage,
        options as TransportSendOptions | undefined,
      );
      // A JSON answer without this request's response: it will not come on that body.
      if (id !== undefined && this.#answeredWhole.delete(id)) this.#bodyEnded([id], "done");
    } catch (error) {
      if (id !== undefined) {
        this.#pending.delete(id);
        this.#answeredWhole.delete(id);
      }
      this.#malformed.delete(error as Error);
      if (error instanceof SdkHttpError && error.status === 404 && this.sessionId) {
        throw new SessionExpiredError();
      }
      throw error;
    }
  }

  /** Sets the negotiated protocol version. */
  setProtocolVersion(version: string): void {
    this.#protocolVersion = version;
    this.#headers = undefined;
    this.#inner.setProtocolVersion(version);
  }

  /** Whether {@linkcode HttpClientTransport.request} can be used (Streamable HTTP, started). */
  get direct(): boolean {
    return this.#options.kind === "http" && this.#started && !this.#closed;
  }

  /**
   * Sends a request straight over HTTP and reads its answer here, past the SDK transport and
   * client (see {@linkcode directRequest}); messages that are not its answer still reach the
   * client. Same errors as through the SDK: undelivered requests throw
   * `RequestNotDeliveredError` / {@linkcode SessionExpiredError}.
   *
   * @param request The method and params.
   * @param options Deadline, signal and progress.
   * @returns The result.
   */
  request(
    request: { method: string; params?: Record<string, unknown> },
    options?: McpCallRequestOptions,
  ): Promise<Record<string, unknown>> {
    this.#host ??= this.#directHost();
    return directRequest(this.#host, this.#directIds++, request, options);
  }

  /** Ends the session (best effort), closes every stream and reports `onclose` once. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // Direct requests in flight end now, as the SDK client ends its own when its transport
    // closes (a JSON answer's body is not owned, and the deadlines stop with the timer).
    for (const [id, handle] of [...this.#direct]) {
      handle({ jsonrpc: "2.0", id, error: CONNECTION_CLOSED });
    }
    this.#deadlines.close();
    if (this.#inner instanceof StreamableHTTPClientTransport && this.#inner.sessionId) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        this.#inner.terminateSession().catch(() => {}),
        new Promise<void>((resolve) => timer = setTimeout(resolve, 1000)),
      ]);
      clearTimeout(timer);
    }
    await this.#inner.close().catch(() => {});
    await this.#guard.close();
    this.#pending.clear();
    this.#answeredWhole.clear();
    this.#malformed.clear();
    this.onclose?.();
  }

  #directHost(): DirectRequestHost {
    const url = this.#options.url;
    return {
      maxBodyBytes: this.#maxBodyBytes,
      deadlines: this.#deadlines,
      exchange: (body, lastEventId) => this.#exchange(url, body, lastEventId),
      own: (reader) => this.#guard.own(reader),
      forward: (message) => this.#inner.onmessage?.(message as JSONRPCMessage),
      expect: (id, handle) => {
        this.#direct.set(id, handle);
        return () => this.#direct.delete(id);
      },
      cancel: (id, reason) => {
        if (this.#closed) return;
        this.send({
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: id, reason },
        })
          .catch(() => {});
      },
      malformed: (error) => this.onerror?.(error),
    };
  }

  #exchange(
    url: URL,
    body: string | undefined,
    lastEventId: string | undefined,
  ): Promise<Response | null> {
    const session = this.sessionId;
    let made = this.#headers;
    if (made === undefined || made.session !== session) {
      const post: Record<string, string> = {
        ...this.#options.headers,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      };
      if (session !== undefined) post["mcp-session-id"] = session;
      if (this.#protocolVersion !== undefined) post["mcp-protocol-version"] = this.#protocolVersion;
      // Made once per session. A plain record: Deno builds a request from one faster than from
      // a `Headers` object (11 vs 31 µs).
      made = this.#headers = { session, post };
    }
    const headers = body === undefined
      ? { ...made.post, accept: "text/event-stream", "last-event-id": lastEventId! }
      : made.post;
    // One reaction on the guarded fetch's promise (every call), not an async frame of its own.
    return this.#guard.send(url, {
      method: body === undefined ? "GET" : "POST",
      headers,
      body,
      redirect: "manual",
    }).then((response) =>
      response.ok && response.status !== 202
        ? response
        : unusualAnswer(response, body === undefined, session)
    );
  }

  #innerError(error: Error): void {
    if (this.#closed) return;
    const lostStream = /^Maximum reconnection attempts/.test(error.message) ||
      (error instanceof SseError && this.#started);
    if (error.name === "ZodError" || error instanceof SyntaxError) this.#malformed.add(error);
    this.onerror?.(error);
    if (lostStream) {
      this.onerror?.(new Error("The server closed the event stream"));
      this.close().catch(() => {});
    }
  }

  #bodyEnded(ids: readonly unknown[], end: BodyEnd): void {
    if (this.#closed) return;
    for (const id of ids) {
      if (!this.#pending.delete(id)) continue;
      const error = end === "too_large"
        ? {
          code: McpErrorCode.InternalError,
          message: `The server's answer is larger than ${this.#maxBodyBytes} bytes`,
        }
        : this.#attributeMalformed()
        ? { code: McpErrorCode.InternalError, message: "The server sent a malformed answer" }
        : { code: McpErrorCode.ConnectionClosed, message: "The server closed the connection" };
      this.onmessage?.({ jsonrpc: "2.0", id, error });
    }
  }

  /** Takes the oldest unattributed parse error, if any, for a request that ended unanswered. */
  #attributeMalformed(): boolean {
    const oldest = this.#malformed.values().next();
    if (oldest.done) return false;
    this.#malformed.delete(oldest.value);
    return true;
  }
}

const CONNECTION_CLOSED = Object.freeze({
  code: McpErrorCode.ConnectionClosed,
  message: "The connection was closed",
});

/** A 202 (accepted, answered elsewhere: `null`) or an HTTP error, thrown as the SDK would. */
async function unusualAnswer(
  response: Response,
  resuming: boolean,
  session: string | undefined,
): Promise<null> {
  if (response.status === 202) {
    await response.body?.cancel().catch(() => {});
    return null;
  }
  const text = await boundedText(response, 4096);
  if (response.status === 404 && session !== undefined) throw new SessionExpiredError();
  throw new SdkHttpError(
    resuming ? SdkErrorCode.ClientHttpFailedToOpenStream : SdkErrorCode.ClientHttpNotImplemented,
    `Error ${resuming ? "resuming the event stream" : "POSTing to endpoint"}: ${text}`,
    { status: response.status, statusText: response.statusText, text },
  );
}

/** The start of an error answer's text (a server's error page can be large). */
async function boundedText(response: Response, max: number): Promise<string> {
  const reader = response.body?.getReader();
  if (reader === undefined) return "";
  const decoder = new TextDecoder();
  let text = "";
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      text += decoder.decode(chunk.value, { stream: true });
      if (text.length >= max) break;
    }
  } catch {
    // The text is only for the message.
  } finally {
    await reader.cancel().catch(() => {});
  }
  return text.slice(0, max);
}

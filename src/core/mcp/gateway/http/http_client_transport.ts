import { GuardedFetch } from "./guarded_fetch.ts";
import { requestScopedFetch } from "./request_scoped_fetch.ts";
import {
  type JSONRPCMessage,
  SdkHttpError,
  SSEClientTransport,
  SseError,
  StreamableHTTPClientTransport,
  type Transport,
  type TransportSendOptions,
} from "../../mcp_sdk.ts";
import { McpErrorCode, McpRpcError } from "../../mcp_error_code.ts";
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
  url: URL;
  /** Headers of every request, for this connection only. */
  headers?: Record<string, string>;
  /** Streamable HTTP or the older HTTP+SSE transport. */
  kind: "http" | "sse";
  fetch?: typeof fetch;
  allowedHosts?: readonly string[];
  /** Most bytes of one response body. */
  maxBodyBytes: number;
  /**
   * When Streamable HTTP keeps a standing event stream (GET) open: `"session"` (default) only
   * once the server gave a session id, `"always"` also for a stateless server.
   */
  eventStream?: "session" | "always";
  /**
   * Goes on with the session of an earlier transport (a parked connection's; Streamable HTTP
   * only): its id, or `""` for a server that gave none (stateless), so that the SDK client takes
   * the transport as one with a session and runs no `initialize` (see `adoptLegacyHandshake`).
   */
  sessionId?: string;
}

type Inner = StreamableHTTPClientTransport | SSEClientTransport;

/**
 * The SDK's HTTP client transports with what a gateway needs on top: a guarded fetch (hosts,
 * redirects, body limit, bodies cancelled on close), requests that fail at once when their
 * response stream breaks, a lost event stream reported as a closed connection, and HTTP 404 on a
 * session reported as {@linkcode SessionExpiredError}.
 */
export class HttpClientTransport implements McpTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: McpJsonRpcMessage, extra?: unknown) => void;
  #inner: Inner;
  #guard: GuardedFetch;
  #pending = new Set<unknown>();
  /** How many `send()`s are under way (their POST not yet answered and read). */
  #sending = 0;
  /**
   * Parse errors not yet attributed to a request. One the SDK also throws from `send()` (a JSON
   * answer) is that request's. Otherwise the SDK does not say which stream it came on, so each
   * explains the next request whose body ends unanswered; a body end with nothing unanswered
   * (another request's) leaves them for the request they belong to.
   */
  #malformed = new Set<Error>();
  /**
   * The requests of POSTs answered by a whole JSON body, read from a request only when a `send()`
   * returns with its request unanswered (the SDK has read such a body when `send()` returns).
   */
  #wholeBodies = new Set<() => readonly unknown[]>();
  /**
   * How many whole bodies are kept before those that answered every request they carried are
   * let go (see `#sweep`).
   */
  #sweepAt = MIN_SWEEP;
  /** Pending requests a whole JSON body carried (see `#answeredWhole`). */
  #wholeIds = new Set<unknown>();
  /** Requests whose answer's body was cut at the size limit. */
  #cut = new Set<unknown>();
  #closed = false;
  #started = false;
  /** Whether a standing event stream (GET) was asked for and not refused: one may be held. */
  #eventStream = false;
  /** Whether `close()` leaves the session on the server (see `keepSession`). */
  #keepSession = false;
  #maxBodyBytes: number;

  /**
   * Creates the transport; `start()` opens it.
   *
   * @param options Endpoint, headers, kind, fetch, allowlist and body limit.
   */
  constructor(options: HttpClientTransportOptions) {
    this.#maxBodyBytes = options.maxBodyBytes;
    this.#guard = new GuardedFetch({
      // Kept connections outlive the request that opened them on edge runtimes.
      fetch: requestScopedFetch(options.fetch),
      allowedHosts: options.allowedHosts,
      maxBodyBytes: options.maxBodyBytes,
      onWholeJson: (ids) => void this.#wholeBodies.add(ids),
      onBodyCut: (ids) => {
        for (const id of ids) this.#cut.add(id);
        // After what the SDK still parses of the part before the cut (a stream with event ids
        // would otherwise be resumed).
        setTimeout(() => this.#bodyEnded(ids), 0);
      },
    });
    // `redirect: "manual"` is what the guarded fetch sends every request with: said here, the
    // SDK's init already carries it and the guard need not copy the init on each request.
    const requestInit: RequestInit = options.headers === undefined
      ? { redirect: "manual" }
      : { headers: { ...options.headers }, redirect: "manual" };
    const guarded = this.#guard.fetch;
    // A stateless server (no session id) has no session to address notifications to, so a
    // standing stream would only hold a socket per connection on both sides. It is answered here
    // as a server without one answers (405); tool lists then follow `toolListTtlMs`.
    const fetch: typeof globalThis.fetch = (input, init) => {
      if (init?.method !== "GET") return guarded(input, init);
      if (
        options.kind === "http" && options.eventStream !== "always" && !this.sessionId &&
        !new Headers(init.headers).has("last-event-id")
      ) {
        return Promise.resolve(new Response(null, { status: 405 }));
      }
      // Held from the request on (an answer still on its way may open it), until refused.
      this.#eventStream = true;
      return guarded(input, init).then((response) => {
        if (!response.ok) this.#eventStream = false;
        return response;
      }, (error) => {
        this.#eventStream = false;
        throw error;
      });
    };
    // Redirects are the guarded fetch's: every request goes with `redirect: "manual"` and a
    // redirect is refused there. `"follow"` leaves them to that fetch, as the SDK documents; its
    // default wraps each request in a within-origin follower that would only pass it through.
    const redirectPolicy = "follow";
    this.#inner = options.kind === "http"
      ? new StreamableHTTPClientTransport(options.url, {
        fetch,
        requestInit,
        redirectPolicy,
        // Resumes broken streams (the server's `retry` wins); when retries run out the connection
        // is reported lost and the next call reconnects with the gateway's own backoff.
        reconnectionOptions: {
          maxRetries: 2,
          initialReconnectionDelay: 500,
          maxReconnectionDelay: 2000,
          reconnectionDelayGrowFactor: 2,
        },
        ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
      })
      : new SSEClientTransport(options.url, {
        fetch,
        requestInit,
        redirectPolicy,
        eventSourceInit: { fetch },
      });
    this.#inner.onmessage = (message: JSONRPCMessage, extra?: unknown) => {
      const { id } = message as { id?: unknown };
      if (id !== undefined && !("method" in message)) this.#pending.delete(id);
      this.onmessage?.(message as McpJsonRpcMessage, extra);
    };
    this.#inner.onerror = (error: Error) => this.#innerError(error);
    this.#inner.onclose = () => {};
  }

  /**
   * Whether each request has its own answer stream (Streamable HTTP): the SDK then cancels a
   * 2026-07-28 request by aborting its POST, which a server without sessions sees, instead of
   * sending `notifications/cancelled`, which such a server cannot tie to the request (it went on
   * working, and the POST stayed open until it answered).
   */
  get hasPerRequestStream(): boolean {
    return this.#inner instanceof StreamableHTTPClientTransport;
  }

  /** The session id, once the server gave one. */
  get sessionId(): string | undefined {
    return this.#inner instanceof StreamableHTTPClientTransport ? this.#inner.sessionId : undefined;
  }

  /**
   * Whether the transport holds a standing event stream (a GET the server answered, for its
   * notifications, or the older HTTP+SSE transport's): a connection that holds one is not parked.
   */
  get holdsEventStream(): boolean {
    return this.#eventStream || this.#inner instanceof SSEClientTransport;
  }

  /** Makes the next `close()` leave the session on the server, to be resumed (parking). */
  keepSession(): void {
    this.#keepSession = true;
  }

  async start(): Promise<void> {
    await this.#inner.start();
    this.#started = true;
  }

  /**
   * Sends a message; a request is tracked until its response arrives or its stream breaks. Its
   * end is taken in one reaction on the SDK's promise (every call), not an async frame.
   *
   * @param message The JSON-RPC message.
   * @param options The SDK's send options.
   */
  send(message: McpJsonRpcMessage, options?: unknown): Promise<void> {
    const id = "method" in message ? message.id : undefined;
    let sendOptions = options as TransportSendOptions | undefined;
    if (id !== undefined) {
      this.#pending.add(id);
      // The SDK says when the event stream answering this POST ended for good (read to its end,
      // broken, or its resumption given up), after it handed on every message the stream carried.
      const theirs = sendOptions?.onRequestStreamEnd;
      sendOptions = {
        ...sendOptions,
        onRequestStreamEnd: () => {
          theirs?.();
          this.#bodyEnded([id]);
        },
      };
      // A request the client cancelled (its stream torn down on purpose) has no stream end.
      sendOptions.requestSignal?.addEventListener("abort", () => this.#pending.delete(id), ONCE);
    }
    this.#sending++;
    let sent: Promise<void>;
    try {
      sent = (this.#inner as Transport).send(message as JSONRPCMessage, sendOptions);
    } catch (error) {
      sent = Promise.reject(error);
    }
    return sent.then(() => this.#sent(id), (error) => this.#notSent(id, error));
  }

  /** After a `send()` whose POST was answered and read. */
  #sent(id: unknown): void {
    this.#sending--;
    // A JSON answer without this request's response: it will not come on that body.
    if (id !== undefined && this.#pending.has(id) && this.#answeredWhole(id)) this.#bodyEnded([id]);
    // A whole body is read within the send of the POST it answers, whose check above is the one
    // that reads it: with no send under way, none is needed (also while a listen stays pending).
    // (`clear()` makes a new table even for an empty set: only what holds something.)
    if (this.#pending.size === 0 || this.#sending === 0) {
      if (this.#wholeBodies.size > 0) this.#wholeBodies.clear();
      if (this.#wholeIds.size > 0) this.#wholeIds.clear();
    } else if (this.#wholeBodies.size >= this.#sweepAt) this.#sweep();
  }

  /** After a `send()` that failed: the error to throw, in the gateway's terms where it has them. */
  #notSent(id: unknown, error: unknown): never {
    this.#sending--;
    if (id !== undefined) {
      this.#pending.delete(id);
      this.#wholeIds.delete(id);
    }
    this.#malformed.delete(error as Error);
    if (error instanceof SdkHttpError && error.status === 404 && this.sessionId) {
      throw new SessionExpiredError();
    }
    // A JSON answer that is no JSON-RPC message: the schema's report would only confuse.
    if (error instanceof Error && (error.name === "ZodError" || error instanceof SyntaxError)) {
      throw new McpRpcError(McpErrorCode.InternalError, "The server sent a malformed answer");
    }
    throw error;
  }

  setProtocolVersion(version: string): void {
    this.#inner.setProtocolVersion(version);
  }

  /** Ends the session (best effort), closes every stream and reports `onclose` once. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const inner = this.#inner;
    if (inner instanceof StreamableHTTPClientTransport && inner.sessionId && !this.#keepSession) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        inner.terminateSession().catch(() => {}),
        new Promise<void>((resolve) => timer = setTimeout(resolve, 1000)),
      ]);
      clearTimeout(timer);
    }
    await this.#inner.close().catch(() => {});
    await this.#guard.close();
    this.#pending.clear();
    this.#wholeBodies.clear();
    this.#wholeIds.clear();
    this.#cut.clear();
    this.#malformed.clear();
    this.onclose?.();
  }

  #innerError(error: Error): void {
    if (this.#closed) return;
    const lostStream = /^Maximum reconnection attempts/.test(error.message) ||
      (error instanceof SseError && this.#started);
    if (error.name === "ZodError" || error instanceof SyntaxError) this.#keepMalformed(error);
    this.onerror?.(error);
    if (lostStream) {
      this.onerror?.(new Error("The server closed the event stream"));
      this.close().catch(() => {});
    }
  }

  /** Whether a whole JSON body answered a request (without its response: it is still pending). */
  #answeredWhole(id: unknown): boolean {
    // An event stream's request (every SSE answer): no whole body to read ids from.
    if (this.#wholeBodies.size === 0 && this.#wholeIds.size === 0) return false;
    for (const ids of this.#wholeBodies) {
      for (const carried of ids()) if (this.#pending.has(carried)) this.#wholeIds.add(carried);
    }
    this.#wholeBodies.clear();
    return this.#wholeIds.delete(id);
  }

  /**
   * Lets go of the whole bodies whose requests were all answered. They go together once no send
   * is under way, but a connection with a POST always in flight (a slow call, many users' calls)
   * would keep each body answered meanwhile and the request text it holds. Reading their ids
   * costs a parse of each; the bound doubles with what stays, so each is read about once.
   */
  #sweep(): void {
    for (const ids of this.#wholeBodies) {
      if (!ids().some((id) => this.#pending.has(id))) this.#wholeBodies.delete(ids);
    }
    for (const id of this.#wholeIds) if (!this.#pending.has(id)) this.#wholeIds.delete(id);
    this.#sweepAt = Math.max(MIN_SWEEP, 2 * this.#wholeBodies.size);
  }

  /** The bodies that could answer these requests ended: those still unanswered fail now. */
  #bodyEnded(ids: readonly unknown[]): void {
    if (this.#closed) return;
    for (const id of ids) {
      const cut = this.#cut.delete(id);
      this.#wholeIds.delete(id);
      if (!this.#pending.delete(id)) continue;
      const error = cut
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

  /**
   * Keeps a parse error for the request it may explain. A few at most: each explains one request,
   * and a server may send a body's worth of events that are no JSON (millions within the body
   * bound) while its requests are answered; the oldest goes first.
   */
  #keepMalformed(error: Error): void {
    if (this.#malformed.size >= MAX_MALFORMED) {
      this.#malformed.delete(this.#malformed.values().next().value!);
    }
    this.#malformed.add(error);
  }

  /** Takes the oldest unattributed parse error, if any, for a request that ended unanswered. */
  #attributeMalformed(): boolean {
    const oldest = this.#malformed.values().next();
    if (oldest.done) return false;
    this.#malformed.delete(oldest.value);
    return true;
  }
}

/** The options of a listener called at most once (one object for every request). */
const ONCE: AddEventListenerOptions = Object.freeze({ once: true });

/** Parse errors kept at most for the requests they may explain (see `#keepMalformed`). */
const MAX_MALFORMED = 16;

/** Whole bodies kept at least before those of answered requests are let go (see `#sweep`). */
const MIN_SWEEP = 8;

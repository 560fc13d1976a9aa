import { concat } from "@std/bytes";
import { rateLimitedResponse } from "../../upstream_rate_limit.ts";
import { checkAllowedHost } from "../../mcp_server_config.ts";
import { AuthorizationRequiredError } from "../oauth/authorization_required_error.ts";

/** Why a request through a {@linkcode GuardedFetch} failed before the server could process it. */
export class RequestNotDeliveredError extends Error {
  /**
   * Creates the error.
   *
   * @param message What failed.
   * @param options The standard error options (`cause`).
   */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "RequestNotDeliveredError";
  }
}

/** Options of {@linkcode GuardedFetch}. */
export interface GuardedFetchOptions {
  /** The fetch to wrap; default: the global one. */
  fetch?: typeof fetch;
  /** Host names (or `*.suffix` patterns) requests may go to; absent: any. */
  allowedHosts?: readonly string[];
  /** Most bytes of one response body; longer bodies are cut with an error. */
  maxBodyBytes: number;
  /**
   * Called when the body of a POST that carried requests was cut at the size limit. (Any other
   * end of a POST's event stream the SDK's transport reports per request, `onRequestStreamEnd`.)
   */
  onBodyCut?: (requestIds: readonly unknown[]) => void;
  /**
   * Told when a POST's answer is a whole JSON body within the limit (whoever parses it knows when
   * it is done). The ids are read from the request only when asked for: nearly every caller
   * needs them only when the answer lacked its request's response.
   */
  onWholeJson?: (requestIds: () => readonly unknown[]) => void;
}

/**
 * A fetch for one MCP connection that checks hosts, refuses redirects with a clear error, bounds
 * response bodies, and owns every response body so that `close()` cancels them all.
 *
 * Owning the bodies is what lets a process exit after close: on Deno 2.9.6 the transport's
 * `AbortController` reaches an in-flight GET event stream only through a signal that fetch holds
 * weakly, so after a garbage collection `abort()` no longer cancels it; cancelling the reader does.
 */
export class GuardedFetch {
  #options: GuardedFetchOptions;
  #readers = new Set<ReadableStreamDefaultReader<Uint8Array>>();
  #closed = false;
  /** The URL last checked against the allowlist. */
  #checked?: URL;

  /**
   * Creates the wrapper.
   *
   * @param options The wrapped fetch, host allowlist, body limit and POST body observer.
   */
  constructor(options: GuardedFetchOptions) {
    this.#options = options;
  }

  /**
   * The fetch function to hand to an SDK transport. Every request's answer is taken in one
   * reaction on the runtime's promise (no async frame of its own): a JSON answer of declared
   * length, nearly every call's, comes back from it as it is.
   */
  readonly fetch = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    if (this.#closed) {
      return Promise.reject(new RequestNotDeliveredError("The connection is closed"));
    }
    // A connection sends to one URL: checked once, not parsed again on every call.
    const checked = input instanceof URL && input.href === this.#checked?.href;
    let url: URL;
    try {
      url = checked ? this.#checked! : new URL(input instanceof Request ? input.url : input);
      if (!checked) {
        checkAllowedHost(url, this.#options.allowedHosts);
        this.#checked = url;
      }
    } catch (error) {
      return Promise.reject(error);
    }
    let sent: Promise<Response>;
    try {
      sent = (this.#options.fetch ?? fetch)(
        input,
        init?.redirect === "manual" ? init : { ...init, redirect: "manual" },
      );
    } catch (error) {
      return Promise.reject(failure(error, url));
    }
    return sent.then(
      (response) => this.#answer(response, url, init),
      (error) => {
        throw failure(error, url);
      },
    );
  };

  /** A response as the transport gets it: refused, bounded, or as it came (see `fetch`). */
  #answer(
    response: Response,
    url: URL,
    init: RequestInit | undefined,
  ): Response | Promise<Response> {
    const refused = rateLimitedResponse(response) ?? refuseRedirect(response, url);
    if (refused !== undefined) return refused;
    // Answered after `close()` (whose abort need not reach a request in flight): its body
    // would be owned by nothing that ends it. Delivered, so not "not delivered".
    if (this.#closed) {
      return (response.body?.cancel() ?? Promise.resolve()).catch(() => {}).then(() => {
        throw new Error("The connection was closed before the server answered");
      });
    }
    // Read from the request body only when needed (an answer cut, or one without its response).
    const ids = init?.method === "POST" ? () => requestIds(init.body) : undefined;
    const type = response.headers.get("content-type") ?? "";
    const json = /^application\/json\b/i.test(type);
    // Before `body` is read: on a response a fetch of the host's made from a string, reading it
    // turns the string into a stream that the SDK's `json()` must then read chunk by chunk.
    if (json && this.#whole(response)) {
      if (ids !== undefined) this.#options.onWholeJson?.(ids);
      return response;
    }
    if (response.body === null) return response;
    // A plain JSON answer is finite: read it here (bounded) and hand over a native body, which
    // the SDK parses faster than a stream of ours; event streams stay owned (see `close`).
    if (json || type.includes("application/json")) return this.#readJson(response, ids);
    return withBody(response, this.#own(response.body, ids));
  }

  /** Cancels every response body still open and refuses further requests. */
  async close(): Promise<void> {
    this.#closed = true;
    const readers = [...this.#readers];
    this.#readers.clear();
    // On workerd a reader opened in another request throws synchronously: cancel each apart.
    await Promise.allSettled(readers.map(async (reader) => await reader.cancel()));
  }

  /**
   * A JSON answer of declared length within the limit needs no watching: the runtime enforces the
   * declared length and reads it natively in one piece, which costs a fraction of streaming it
   * through JavaScript (time, and on a pool of thousands of connections, memory).
   */
  #whole(response: Response): boolean {
    const headers = response.headers;
    const length = Number(headers.get("content-length") ?? Number.NaN);
    // Not with a `content-encoding`: the length is of the compressed bytes (a gzip bomb). Not
    // with a `transfer-encoding`: the runtime reads a chunked body to its last chunk and still
    // shows the `content-length` sent beside it, which then declares nothing.
    return Number.isSafeInteger(length) && length <= this.#options.maxBodyBytes &&
      !headers.has("content-encoding") && !headers.has("transfer-encoding");
  }

  async #readJson(response: Response, ids: (() => unknown[]) | undefined): Promise<Response> {
    const max = this.#options.maxBodyBytes;
    const declared = Number(response.headers.get("content-length") ?? NaN);
    let body: Uint8Array | undefined;
    const reader = response.body!.getReader();
    this.#readers.add(reader);
    try {
      if (declared > max) throw new TooLargeError(max);
      const chunks: Uint8Array[] = [];
      let bytes = 0;
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        bytes += chunk.value.byteLength;
        if (bytes > max) throw new TooLargeError(max);
        chunks.push(chunk.value);
      }
      body = chunks.length === 1 ? chunks[0] : concat(chunks);
    } catch (error) {
      await reader.cancel().catch(() => {});
      if (!(error instanceof TooLargeError)) throw error;
    } finally {
      this.#readers.delete(reader);
    }
    if (body === undefined) {
      this.#cut(ids);
      throw new TooLargeError(max);
    }
    if (ids !== undefined) this.#options.onWholeJson?.(ids);
    return new Response(body as Uint8Array<ArrayBuffer>, response);
  }

  /** Tells which requests a body cut at the limit carried, when they are asked for. */
  #cut(ids: (() => unknown[]) | undefined): void {
    const onBodyCut = this.#options.onBodyCut;
    if (onBodyCut === undefined || ids === undefined) return;
    const carried = ids();
    if (carried.length > 0) onBodyCut(carried);
  }

  /**
   * The body read through a stream of ours: bounded, and cancelled by `close()`. Each pull is one
   * reaction on the runtime's read (no async frame per chunk).
   */
  #own(
    body: ReadableStream<Uint8Array>,
    ids: (() => unknown[]) | undefined,
  ): ReadableStream<Uint8Array> {
    const reader = body.getReader();
    this.#readers.add(reader);
    const max = this.#options.maxBodyBytes;
    let bytes = 0;
    let ended = false;
    const end = (tooLarge = false) => {
      if (ended) return;
      ended = true;
      this.#readers.delete(reader);
      if (tooLarge) this.#cut(ids);
    };
    return new ReadableStream<Uint8Array>({
      pull: (controller) =>
        reader.read().then((chunk) => {
          if (chunk.done) {
            end();
            controller.close();
            return;
          }
          bytes += chunk.value.byteLength;
          if (bytes <= max) return controller.enqueue(chunk.value);
          end(true);
          return reader.cancel().catch(() => {}).then(() => {
            controller.error(new Error(`The response exceeded ${max} bytes and was cut`));
          });
        }, (error) => {
          end();
          controller.error(error);
        }),
      cancel: async (reason) => {
        end();
        await reader.cancel(reason).catch(() => {});
      },
    });
  }
}

/**
 * The runtime's response with its body read through `owned`. Building a second `Response` around
 * the stream costs more than the stream itself on every event-stream answer; the runtime's own
 * body is locked by `owned`'s reader, so nothing reads around the bound.
 */
function withBody(response: Response, owned: ReadableStream<Uint8Array>): Response {
  Object.defineProperty(response, "body", { value: owned });
  response.text = wholeText;
  response.json = wholeJson;
  return response;
}

/**
 * `text()` and `json()` of a response given to {@linkcode withBody} (what the SDK reads a body
 * with, besides `body`: an error status's text, a body drained): through a `Response` around its
 * owned body, built only then. Any other reader finds the runtime's body locked and throws.
 */
function wholeText(this: Response): Promise<string> {
  return new Response(this.body, this).text();
}

function wholeJson(this: Response): Promise<unknown> {
  return new Response(this.body, this).json();
}

/** Why a fetch failed, as the error to throw (an abort and an authorization request as they are). */
function failure(error: unknown, url: URL): unknown {
  if (isAbort(error) || error instanceof AuthorizationRequiredError) return error;
  const message = describe(error);
  if (/\(Connect\)|tcp connect|connection refused|dns error|failed to lookup/i.test(message)) {
    return new RequestNotDeliveredError(`Cannot connect to ${url.origin}`, { cause: error });
  }
  return new Error(`The request to ${url.origin} failed: ${firstLine(message)}`);
}

/** For a redirect, its refusal with a clear error; `undefined` for any other response. */
function refuseRedirect(response: Response, url: URL): Promise<never> | undefined {
  if ((response.status < 300 || response.status >= 400) && response.type !== "opaqueredirect") {
    return undefined;
  }
  const location = response.headers.get("location");
  // Delivered: the server read the request and may have run it (a 303 after a POST says so), so
  // the call must not be sent again as one that never arrived.
  const error = new Error(
    `The server at ${url.origin} answered with a redirect (HTTP ${response.status}${
      location ? ` to ${safeLocation(location, url)}` : ""
    }), which is not followed: configure the final URL instead`,
  );
  return (response.body?.cancel() ?? Promise.resolve()).then(() => {
    throw error;
  });
}

/** A response body over the limit. */
class TooLargeError extends Error {
  constructor(max: number) {
    super(`The response exceeded ${max} bytes and was cut`);
    this.name = "TooLargeError";
  }
}

function requestIds(body: BodyInit | null | undefined): unknown[] {
  // A request's body here is the SDK's own JSON text of its messages.
  if (typeof body !== "string" || !body.includes('"method"')) return [];
  try {
    const parsed = JSON.parse(body);
    const messages = Array.isArray(parsed) ? parsed : [parsed];
    return messages.filter((m) => m && typeof m.method === "string" && m.id !== undefined)
      .map((m) => m.id);
  } catch {
    return [];
  }
}

/** The message of an error and of its cause (Deno's fetch says only "fetch failed"). */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? error.cause.message : "";
  return cause ? `${error.message}: ${cause}` : error.message;
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError");
}

function firstLine(text: string): string {
  return text.split("\n", 1)[0].slice(0, 300);
}

function safeLocation(location: string, base: URL): string {
  try {
    const target = new URL(location, base);
    return `${target.origin}${target.pathname}`;
  } catch {
    return "an invalid location";
  }
}

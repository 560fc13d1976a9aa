import { McpErrorCode, McpRpcError } from "../mcp_error_code.ts";
import type { McpCallRequestOptions } from "../mcp_call.ts";
import type { McpJsonRpcMessage } from "../mcp_transport.ts";

/** The SDK's default request deadline. */
const DEFAULT_TIMEOUT_MS = 60_000;
/** Resumptions of a broken event stream that carried event ids (the SDK transport's setting). */
const MAX_RESUMPTIONS = 2;

type Result = Record<string, unknown>;

/** What a direct request needs of its connection (an `HttpClientTransport`). */
export interface DirectRequestHost {
  /** Most bytes of one answer. */
  readonly maxBodyBytes: number;
  /**
   * POSTs a JSON-RPC body, or with `body` undefined GETs the event stream after `lastEventId`,
   * with the connection's headers; `null` when the server accepted it without an answer (202).
   */
  exchange(body: string | undefined, lastEventId: string | undefined): Promise<Response | null>;
  /** Registers a body reader so that closing the connection cancels it; returns the release. */
  own(reader: ReadableStreamDefaultReader<Uint8Array>): () => void;
  /** Delivers a message that is not this request's (logs, elicitation, other answers). */
  forward(message: McpJsonRpcMessage): void;
  /** Routes this id's answer here should it arrive on another stream; returns the release. */
  expect(id: number, handle: (message: McpJsonRpcMessage) => void): () => void;
  /** Tells the server a request was given up (`notifications/cancelled`). */
  cancel(id: number, reason: string): void;
  /** Reports a message that could not be parsed. */
  malformed(error: Error): void;
}

/** How reading one answer goes: its stream's last event id and retry, and whether it ended. */
interface Reading {
  lastEventId?: string;
  retryMs: number;
  malformed: boolean;
  /** Set when the request was given up (deadline, signal): reading stops. */
  stopped: boolean;
  /** The body being read, cancelled when the request is given up. */
  reader?: ReadableStreamDefaultReader<Uint8Array>;
  /** Ends the wait before a resumption at once (the server's `retry` can ask for days). */
  wake?: () => void;
}

/**
 * Sends one JSON-RPC request over Streamable HTTP and reads its answer itself: a JSON body is
 * parsed at once, an event stream line by line in one loop (no stream pipes), every message that
 * is not the answer goes to the SDK client through `host.forward`. The guarantees of the SDK path
 * hold: the deadline (restarted by progress up to the hard one), the caller's signal, a
 * `notifications/cancelled` when given up, the body size bound, a stream with event ids resumed,
 * and an answer that never comes reported when its stream ends.
 *
 * @param host The connection.
 * @param id The request id (from a range the SDK client does not use).
 * @param request The method and params.
 * @param options Deadline, signal and progress.
 * @returns The result.
 */
export function directRequest(
  host: DirectRequestHost,
  id: number,
  request: { method: string; params?: Result },
  options: McpCallRequestOptions = {},
): Promise<Result> {
  const { signal, onprogress } = options;
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise<Result>((resolve, reject) => {
    // No per-call AbortController for fetch (like the SDK's): a request given up stops being
    // read, its body is cancelled, and the server is told with `notifications/cancelled`.
    const reading: Reading = { retryMs: 500, malformed: false, stopped: false };
    const started = performance.now();
    const timeoutMs = options.timeout ?? DEFAULT_TIMEOUT_MS;
    let settled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = (error: unknown, result?: Result) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      release();
      if (result !== undefined) resolve(result);
      else reject(error);
    };
    const giveUp = (error: unknown) => {
      if (settled) return;
      finish(error);
      host.cancel(id, String(error));
      reading.stopped = true;
      reading.reader?.cancel().catch(() => {});
      reading.wake?.();
    };
    const onAbort = () => giveUp(signal?.reason);
    const arm = () =>
      timer = setTimeout(
        () =>
          giveUp(
            new McpRpcError(McpErrorCode.RequestTimeout, "Request timed out", {
              timeout: timeoutMs,
            }),
          ),
        timeoutMs,
      );
    const handle = (message: McpJsonRpcMessage): void => {
      const { method } = message;
      if (method === undefined && message.id === id) {
        const error = message.error as { code?: unknown; message?: unknown; data?: unknown };
        const result = message.result;
        if (error !== undefined && error !== null) {
          const code = typeof error.code === "number" ? error.code : McpErrorCode.InternalError;
          finish(new McpRpcError(code, String(error.message), error.data));
        } else if (result !== null && typeof result === "object" && !Array.isArray(result)) {
          finish(undefined, result as Result);
        } else finish(malformedAnswer());
        return;
      }
      const params = message.params as Result | undefined;
      if (method !== "notifications/progress" || params?.progressToken !== id) {
        return host.forward(message);
      }
      if (settled) return;
      onprogress?.(params as { progress: number; total?: number; message?: string });
      if (!options.resetTimeoutOnProgress) return;
      const max = options.maxTotalTimeout;
      const elapsed = performance.now() - started;
      if (max !== undefined && elapsed >= max) {
        return giveUp(
          new McpRpcError(McpErrorCode.RequestTimeout, "Maximum total timeout exceeded", {
            maxTotalTimeout: max,
            totalElapsed: elapsed,
          }),
        );
      }
      clearTimeout(timer);
      arm();
    };
    const release = host.expect(id, handle);
    signal?.addEventListener("abort", onAbort, { once: true });
    arm();
    const params = onprogress === undefined ? request.params : {
      ...request.params,
      _meta: { ...(request.params?._meta as Result | undefined), progressToken: id },
    };
    const body = JSON.stringify({ jsonrpc: "2.0", id, method: request.method, params });
    exchange(host, id, body, reading, handle).then(
      (ending) => ending !== undefined && finish(ending),
      (error) => finish(error),
    );
  });
}

/**
 * Runs the HTTP side: the POST, its answer, and resumptions of a broken event stream. Returns
 * the error to end the request with when its answer did not come, `undefined` otherwise (answered,
 * or accepted to be answered on another stream).
 */
async function exchange(
  host: DirectRequestHost,
  id: number,
  body: string,
  reading: Reading,
  handle: (message: McpJsonRpcMessage) => void,
): Promise<Error | undefined> {
  let answered = false;
  const deliver = (message: McpJsonRpcMessage) => {
    if (message.method === undefined && message.id === id) answered = true;
    handle(message);
  };
  let response = await host.exchange(body, undefined);
  for (let resumptions = 0;; resumptions++) {
    if (response === null) return undefined;
    if (reading.stopped) {
      await response.body?.cancel().catch(() => {});
      return undefined;
    }
    const type = response.headers.get("content-type") ?? "";
    let end: "done" | "error" | "too_large";
    if (/^\s*application\/json/i.test(type)) {
      end = await readJson(host, response, reading, deliver);
    } else if (/^\s*text\/event-stream/i.test(type)) {
      end = await readEventStream(host, response.body, reading, deliver);
    } else {
      await response.body?.cancel().catch(() => {});
      return new Error(`The server answered with an unexpected content type "${type}"`);
    }
    if (answered || reading.stopped) return undefined;
    if (end === "too_large") {
      return new McpRpcError(
        McpErrorCode.InternalError,
        `The server's answer is larger than ${host.maxBodyBytes} bytes`,
      );
    }
    if (reading.lastEventId === undefined || resumptions >= MAX_RESUMPTIONS) {
      return reading.malformed ? malformedAnswer() : new McpRpcError(
        McpErrorCode.ConnectionClosed,
        "The server closed the connection",
      );
    }
    // A stream with event ids is resumed where it broke (the server's `retry` wins).
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, reading.retryMs * 2 ** resumptions);
      reading.wake = () => (clearTimeout(timer), resolve());
    });
    reading.wake = undefined;
    if (reading.stopped) return undefined;
    response = await host.exchange(undefined, reading.lastEventId);
  }
}

async function readJson(
  host: DirectRequestHost,
  response: Response,
  reading: Reading,
  deliver: (message: McpJsonRpcMessage) => void,
): Promise<"done" | "error" | "too_large"> {
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  let text: string;
  // A declared length counts encoded bytes: with a `content-encoding` the runtime decompresses,
  // so a small gzip body could expand without bound if it were read whole.
  if (
    Number.isSafeInteger(declared) && declared <= host.maxBodyBytes &&
    !response.headers.has("content-encoding")
  ) {
    // The runtime enforces the declared length and reads it natively in one piece.
    text = await response.text();
  } else {
    const chunks: string[] = [];
    const end = await readEventStream(host, response.body, reading, undefined, chunks);
    if (end !== "done") return end;
    text = chunks.join("");
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    reading.malformed = true;
    host.malformed(error as Error);
    return "done";
  }
  deliverAll(host, parsed, reading, deliver);
  return "done";
}

/**
 * Reads a body with its size bounded: as an event stream (each `message` event's data parsed
 * and delivered), or, with `text` given, collecting the decoded text.
 */
async function readEventStream(
  host: DirectRequestHost,
  body: ReadableStream<Uint8Array> | null,
  reading: Reading,
  deliver?: (message: McpJsonRpcMessage) => void,
  text?: string[],
): Promise<"done" | "error" | "too_large"> {
  if (body === null) return "done";
  const reader = body.getReader();
  const release = host.own(reader);
  reading.reader = reader;
  const decoder = new TextDecoder();
  let buffer = "";
  let data: string[] = [];
  let event = "";
  let bytes = 0;
  let lfAfterCr = false;
  const dispatch = () => {
    if (data.length > 0 && (event === "" || event === "message")) {
      try {
        deliverAll(host, JSON.parse(data.join("\n")), reading, deliver!);
      } catch (error) {
        reading.malformed = true;
        host.malformed(error as Error);
      }
    }
    data = [];
    event = "";
  };
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) break;
      bytes += chunk.value.byteLength;
      if (bytes > host.maxBodyBytes) {
        await reader.cancel().catch(() => {});
        return "too_large";
      }
      if (text !== undefined) {
        text.push(decoder.decode(chunk.value, { stream: true }));
        continue;
      }
      let decoded = decoder.decode(chunk.value, { stream: true });
      // Lines end with LF, CRLF or CR: the rarer two become LF (a CRLF may span two chunks).
      if (lfAfterCr && decoded.startsWith("\n")) decoded = decoded.slice(1);
      lfAfterCr = false;
      if (decoded.includes("\r")) {
        lfAfterCr = decoded.endsWith("\r");
        decoded = decoded.replace(/\r\n?/g, "\n");
      }
      buffer += decoded;
      let start = 0;
      for (
        let newline = buffer.indexOf("\n");
        newline >= 0;
        newline = buffer.indexOf("\n", start)
      ) {
        const line = buffer.slice(start, newline);
        start = newline + 1;
        if (line === "") {
          dispatch();
          continue;
        }
        const colon = line.indexOf(":");
        if (colon === 0) continue;
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0
          ? ""
          : line.slice(line.charCodeAt(colon + 1) === 32 ? colon + 2 : colon + 1);
        if (field === "data") data.push(value);
        else if (field === "event") event = value;
        else if (field === "id" && !value.includes("\0")) reading.lastEventId = value;
        else if (field === "retry" && /^\d+$/.test(value)) reading.retryMs = Number(value);
      }
      buffer = buffer.slice(start);
    }
    text?.push(decoder.decode());
    return "done";
  } catch {
    return "error";
  } finally {
    release();
  }
}

/** Delivers each JSON-RPC message of a parsed body; anything else counts as malformed. */
function deliverAll(
  host: DirectRequestHost,
  parsed: unknown,
  reading: Reading,
  deliver: (message: McpJsonRpcMessage) => void,
): void {
  for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
    if (isJsonRpcMessage(message)) deliver(message);
    else {
      reading.malformed = true;
      host.malformed(new SyntaxError("The server sent something that is not a JSON-RPC message"));
    }
  }
}

/** A request or notification (a `method`), or a response (an `id` and a result or an error). */
function isJsonRpcMessage(message: unknown): message is McpJsonRpcMessage {
  if (message === null || typeof message !== "object" || Array.isArray(message)) return false;
  const { method, id, result, error } = message as McpJsonRpcMessage;
  if (typeof method === "string") return true;
  return (typeof id === "string" || typeof id === "number") &&
    ((result !== undefined) !== (error !== undefined));
}

function malformedAnswer(): McpRpcError {
  return new McpRpcError(McpErrorCode.InternalError, "The server sent a malformed answer");
}

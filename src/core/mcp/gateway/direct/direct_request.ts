import { McpErrorCode, McpRpcError } from "../../mcp_error_code.ts";
import type { McpCallRequestOptions } from "../../mcp_call.ts";
import type { McpJsonRpcMessage } from "../../mcp_transport.ts";
import { malformedAnswer } from "./direct_answer_reader.ts";
import { exchange } from "./direct_exchange.ts";
import type { DirectRequestHost, Reading } from "./direct_request_host.ts";

/** The SDK's default request deadline. */
const DEFAULT_TIMEOUT_MS = 60_000;

type Result = Record<string, unknown>;

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
    const timeoutMs = options.timeout ?? DEFAULT_TIMEOUT_MS;
    let settled = false;
    const finish = (error: unknown, result?: Result) => {
      if (settled) return;
      settled = true;
      host.deadlines.delete(deadline);
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
    // The connection's one timer (no timer per request).
    const deadline = host.deadlines.add(timeoutMs, () =>
      giveUp(
        new McpRpcError(McpErrorCode.RequestTimeout, "Request timed out", { timeout: timeoutMs }),
      ));
    const started = deadline.at - timeoutMs;
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
      // Progress is this call's only when it sent a token (`onprogress`): the server knows the
      // request's id, and progress it sends for a call without a token must not extend it.
      if (
        method !== "notifications/progress" || onprogress === undefined ||
        params?.progressToken !== id
      ) {
        return host.forward(message);
      }
      if (settled) return;
      onprogress(params as { progress: number; total?: number; message?: string });
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
      host.deadlines.restart(deadline, timeoutMs);
    };
    const release = host.expect(id, handle);
    signal?.addEventListener("abort", onAbort, { once: true });
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

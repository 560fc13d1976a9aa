import { ToolError } from "../tool_error.ts";

/**
 * What a guarded fetch throws for an upstream's HTTP 429, carrying its `Retry-After` (the SDK's
 * own HTTP error keeps the status but not the headers).
 */
export class UpstreamRateLimitedError extends Error {
  /** Milliseconds until the upstream accepts calls again, when it said. */
  readonly retryAfterMs?: number;

  /**
   * @param message What happened.
   * @param retryAfterMs The upstream's retry time, when it gave one.
   */
  constructor(message: string, retryAfterMs?: number) {
    super(message);
    this.name = "UpstreamRateLimitedError";
    this.retryAfterMs = retryAfterMs;
  }
}

/** Most we pass on: an upstream's retry time past a day is not a time a model can wait. */
const MAX_RETRY_MS = 24 * 60 * 60_000;

/**
 * The error for a 429 response (its body cancelled), or `undefined` for any other status.
 *
 * @param response The upstream's response.
 * @param now The clock, for a `Retry-After` given as a date.
 * @returns The error to throw instead of the response.
 */
export function rateLimitedResponse(
  response: Response,
  now?: number,
): Promise<never> | undefined {
  if (response.status !== 429) return undefined;
  // The clock is read for a 429 only, not on every response.
  const retryAfterMs = parseRetryAfter(response.headers.get("retry-after"), now ?? Date.now());
  const error = new UpstreamRateLimitedError(
    `The server answered HTTP 429 Too Many Requests`,
    retryAfterMs,
  );
  return (response.body?.cancel() ?? Promise.resolve()).catch(() => {}).then(() => {
    throw error;
  });
}

/**
 * A `Retry-After` value (seconds, or an HTTP date) in milliseconds from `now`.
 *
 * @param value The header's value.
 * @returns The milliseconds, or `undefined` when absent or unreadable.
 */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  const ms = /^\d+(\.\d+)?$/.test(text) ? Number(text) * 1000 : Date.parse(text) - now;
  return Number.isFinite(ms) ? clamp(ms) : undefined;
}

/**
 * The `rate_limited` tool error for what an MCP call threw, when it is a rate limit: an HTTP 429
 * (anywhere in the cause chain), or a JSON-RPC error whose message says "rate limit" or "too
 * many requests" (its `data.retryAfterMs`, `data.retryAfter` in seconds, or "retry after N
 * seconds" in its message give the retry time).
 *
 * @param error What was thrown.
 * @param toolName The tool's name on the server.
 * @returns The tool error, or `undefined` when it is not a rate limit.
 */
export function upstreamRateLimit(error: unknown, toolName: string): ToolError | undefined {
  let retryAfterMs: number | undefined;
  let limited = false;
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    const { status, data } = current as { status?: unknown; data?: unknown };
    const detail = (data ?? {}) as {
      status?: unknown;
      retryAfterMs?: unknown;
      retryAfter?: unknown;
    };
    if (current instanceof UpstreamRateLimitedError) {
      limited = true;
      retryAfterMs ??= current.retryAfterMs;
    } else if (status === 429 || detail.status === 429) limited = true;
    else if (/rate[ -]?limit|too many requests/i.test(current.message)) limited = true;
    if (limited) {
      if (typeof detail.retryAfterMs === "number") retryAfterMs ??= clamp(detail.retryAfterMs);
      if (typeof detail.retryAfter === "number") retryAfterMs ??= clamp(detail.retryAfter * 1000);
      const said = /retry (?:after|in) (\d+(?:\.\d+)?) ?(ms|milliseconds?|s|sec|seconds?)\b/i
        .exec(current.message);
      if (said) retryAfterMs ??= clamp(Number(said[1]) * (/^m/i.test(said[2]) ? 1 : 1000));
      break;
    }
    current = current.cause;
  }
  if (!limited) return undefined;
  const when = retryAfterMs === undefined
    ? "Wait before calling it again"
    : `Retry after ${Math.ceil(retryAfterMs / 1000)} s (retryAfterMs ${retryAfterMs})`;
  return new ToolError(
    "rate_limited",
    `The server of tool "${toolName}" refused the call: its rate limit is reached. ${when}, or continue without it`,
    { cause: error, retryAfterMs },
  );
}

function clamp(ms: number): number {
  return Math.min(MAX_RETRY_MS, Math.max(0, Math.ceil(ms)));
}

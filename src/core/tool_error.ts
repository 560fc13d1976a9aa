/**
 * The closed set of error codes a tool call can end with.
 *
 * - `unknown_tool`: the name is not in the tool set of this request.
 * - `invalid_arguments`: the arguments are not valid JSON, not an object, or do not match the schema.
 * - `permission_denied`: the sandbox or the operating system refused an operation.
 * - `timeout`: the call did not finish before its deadline.
 * - `aborted`: the caller's `AbortSignal` aborted the call.
 * - `tool_error`: the tool ran and failed.
 * - `upstream_unavailable`: a remote MCP server could not be reached or went away.
 * - `approval_required`: a policy asks a person first and no approval handler is set; the
 *   result carries a `PendingApproval` for `ToolSet#approve` or `ToolRouter#resume`.
 * - `audit_unavailable`: the audit trail had no room for the call's record within its bound, so
 *   the call did not run rather than run unaudited.
 * - `rate_limited`: a limit of the policy (or the upstream server) refused the call; it did not
 *   run, and `retryAfterMs` on the result says when it may be tried again.
 */
export type ErrorCode =
  | "unknown_tool"
  | "invalid_arguments"
  | "permission_denied"
  | "timeout"
  | "aborted"
  | "tool_error"
  | "upstream_unavailable"
  | "approval_required"
  | "audit_unavailable"
  | "rate_limited";

/** Every {@linkcode ErrorCode}, in a stable order. */
export const ERROR_CODES: readonly ErrorCode[] = Object.freeze([
  "unknown_tool",
  "invalid_arguments",
  "permission_denied",
  "timeout",
  "aborted",
  "tool_error",
  "upstream_unavailable",
  "approval_required",
  "audit_unavailable",
  "rate_limited",
]);

/**
 * An error caused by a model's tool call, carrying a stable {@linkcode ErrorCode}.
 *
 * Executors throw it; the router's catch boundary turns it into an error result whose text
 * is the message, so the message must be plain sentences a model can act on.
 *
 * @example Throw from a tool handler
 * ```ts
 * import { ToolError } from "@toolroute/toolroute";
 *
 * const error = new ToolError("permission_denied", "Path \"x\" is read-only");
 * if (error.code !== "permission_denied") throw new Error("unexpected code");
 * ```
 */
export class ToolError extends Error {
  /** The stable code of this error. */
  readonly code: ErrorCode;
  /** With `rate_limited`: milliseconds until the call may be tried again, when known. */
  readonly retryAfterMs?: number;

  /**
   * Creates a tool error.
   *
   * @param code The stable code.
   * @param message One or two plain sentences for the model.
   * @param options The standard error options (`cause`), and `retryAfterMs` for `rate_limited`.
   */
  constructor(
    code: ErrorCode,
    message: string,
    options?: ErrorOptions & { retryAfterMs?: number },
  ) {
    super(message, options);
    this.name = "ToolError";
    this.code = code;
    if (options?.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
  }
}

/**
 * Returns whether a value is a {@linkcode ToolError}, also across module copies.
 *
 * @param value Any value.
 * @returns `true` when the value is a tool error.
 */
export function isToolError(value: unknown): value is ToolError {
  return value instanceof ToolError ||
    (value instanceof Error && value.name === "ToolError" &&
      ERROR_CODES.includes((value as { code?: ErrorCode }).code as ErrorCode));
}

/** What anything thrown says, in words: its message, or a sentence for a throw without one. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === "string") return error || "it threw an empty string";
  if (error === undefined || error === null) return "it failed without a message";
  if (typeof error === "object") {
    const message = (error as { message?: unknown }).message;
    if (typeof message === "string" && message !== "") return message;
    try {
      return JSON.stringify(error) ?? String(error);
    } catch {
      return Object.prototype.toString.call(error);
    }
  }
  return String(error);
}

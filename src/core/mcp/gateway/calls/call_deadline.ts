import { ToolError } from "../../../tool_error.ts";
import type { ToolContext } from "../../../tool_source.ts";
import { isSharedSignal } from "../../../tool_call.ts";

/** The deadline of one remote call. */
export interface CallDeadline {
  /** Aborts when the caller aborts or the hard deadline passes (reason: a `ToolError`). */
  signal: AbortSignal;
  /** The request deadline the SDK applies (restarted by progress when `extendable`). */
  timeoutMs: number;
  /** The hard deadline. */
  hardMs: number;
  /** Whether progress notifications restart the request deadline (up to `hardMs`). */
  extendable: boolean;
  /** Stops the timer. */
  dispose(): void;
}

/**
 * Makes the deadline of one call: the call's own `timeoutMs` when it has one (hard), otherwise
 * `requestTimeoutMs`, which progress may extend up to `maxTotalTimeoutMs` (default 4×).
 *
 * @param toolName The tool, for the timeout message.
 * @param context The call's context (signal and optional deadline).
 * @param requestTimeoutMs The gateway's default deadline.
 * @param maxTotalTimeoutMs The gateway's hard maximum for calls that report progress.
 * @returns The deadline; call `dispose()` when the call ends.
 */
export function callDeadline(
  toolName: string,
  context: ToolContext,
  requestTimeoutMs: number,
  maxTotalTimeoutMs: number | undefined,
): CallDeadline {
  const timeoutMs = context.timeoutMs ?? requestTimeoutMs;
  const hardMs = context.timeoutMs ?? maxTotalTimeoutMs ?? 4 * timeoutMs;
  const controller = new AbortController();
  const timer = setTimeout(
    () =>
      controller.abort(
        new ToolError("timeout", `Tool "${toolName}" did not finish within ${hardMs} ms`),
      ),
    hardMs,
  );
  return {
    // The shared never-aborting signal is left out: it may belong to another request, whose
    // objects workerd refuses to touch ("Cannot perform I/O on behalf of a different request").
    signal: isSharedSignal(context.signal)
      ? controller.signal
      : AbortSignal.any([context.signal, controller.signal]),
    timeoutMs,
    hardMs,
    extendable: hardMs > timeoutMs,
    dispose: () => clearTimeout(timer),
  };
}

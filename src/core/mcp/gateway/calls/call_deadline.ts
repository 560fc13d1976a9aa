import { ToolError } from "../../../tool_error.ts";
import type { ToolContext } from "../../../tool_source.ts";

/** The deadline of one remote call. */
export interface CallDeadline {
  /** Aborts when the caller aborts or the hard deadline passes (reason: a `ToolError`). */
  signal: AbortSignal;
  /** The request deadline the SDK applies (restarted by progress when `extendable`). */
  timeoutMs: number;
  hardMs: number;
  /** Whether progress notifications restart the request deadline (up to `hardMs`). */
  extendable: boolean;
  /** Stops the timer, when there is one of ours. */
  dispose(): void;
}

/**
 * Makes the deadline of one call: the call's own `timeoutMs` when it has one (hard), otherwise
 * `requestTimeoutMs`, which progress may extend up to `maxTotalTimeoutMs` (default 4×).
 *
 * A call with its own deadline already has its timer: the router's, which aborts
 * `context.signal` with the `timeout` error; that signal is used as it is and no second timer is
 * set. Only a call without one (the gateway's default deadline) gets a timer here.
 *
 * @param toolName The tool, for the timeout message.
 * @param context The call's context (signal and optional deadline).
 * @param settings The gateway's default deadline (`requestTimeoutMs`) and its hard maximum for
 *   calls that report progress (`maxTotalTimeoutMs`).
 * @returns The deadline; call `dispose()` when the call ends.
 */
export function callDeadline(
  toolName: string,
  context: ToolContext,
  settings: { requestTimeoutMs: number; maxTotalTimeoutMs?: number },
): CallDeadline {
  const { requestTimeoutMs, maxTotalTimeoutMs } = settings;
  if (context.timeoutMs !== undefined) {
    const ms = context.timeoutMs;
    return {
      signal: context.signal,
      timeoutMs: ms,
      hardMs: ms,
      extendable: false,
      dispose: () => {},
    };
  }
  const timeoutMs = requestTimeoutMs;
  const hardMs = maxTotalTimeoutMs ?? 4 * timeoutMs;
  const controller = new AbortController();
  // The caller's abort is passed on by a listener, not `AbortSignal.any`, which costs a remote
  // call more than the rest of its deadline.
  const outer = context.signal;
  const onAbort = () => controller.abort(outer.reason);
  if (outer.aborted) onAbort();
  else outer.addEventListener("abort", onAbort, { once: true });
  const timer = setTimeout(
    () =>
      controller.abort(
        new ToolError("timeout", `Tool "${toolName}" did not finish within ${hardMs} ms`),
      ),
    hardMs,
  );
  return {
    signal: controller.signal,
    timeoutMs,
    hardMs,
    extendable: hardMs > timeoutMs,
    dispose: () => {
      clearTimeout(timer);
      outer.removeEventListener("abort", onAbort);
    },
  };
}

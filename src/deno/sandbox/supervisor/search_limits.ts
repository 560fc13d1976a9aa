/** The deadline and stop of one running search in the supervisor (see `searchLimits`). */
export interface SearchLimits {
  /** Ends the search's entry in `running`. */
  release(): void;
  /** The milliseconds left before the deadline. */
  msLeft(): number;
  /** Calls `listener` on `stopSearch` until the returned function is called. */
  onCancel(listener: () => void): () => void;
  /** Why to stop, if so; every 20 ms it first lets the event loop run (one await). */
  stop(): Promise<string | undefined> | string | undefined;
}

/**
 * The limits of one search of the supervisor's search family: its deadline (the request's
 * `timeoutMs`) and its stop (registered in `running` under the request's id, called by
 * `stopSearch`). A global of the supervisor (`supervisor_script.ts` puts its source text before
 * the families): self-contained.
 *
 * @param running The running searches' stop functions, by request id.
 * @param request The request (its `id` and `timeoutMs`).
 */
export function searchLimits(
  running: Map<number, () => void>,
  request: Record<string, unknown>,
): SearchLimits {
  const id = Number(request.id);
  // Every 20 ms of work, the event loop runs (a `stopSearch` comes in that way).
  const YIELD_MS = 20;
  const deadline = performance.now() + Number(request.timeoutMs);
  let lastYield = performance.now();
  let cancelled = false;
  const onCancel = new Set<() => void>();
  running.set(id, () => {
    cancelled = true;
    for (const listener of onCancel) listener();
  });
  return {
    release: () => void running.delete(id),
    msLeft: () => Math.max(0, deadline - performance.now()),
    onCancel(listener: () => void): () => void {
      onCancel.add(listener);
      return () => void onCancel.delete(listener);
    },
    stop(): Promise<string | undefined> | string | undefined {
      const why = () => cancelled ? "stopped" : lastYield > deadline ? "deadline" : undefined;
      const now = performance.now();
      if (now - lastYield < YIELD_MS) return cancelled ? "stopped" : undefined;
      // One turn of the event loop, not a 0 ms timeout (which also sleeps, idle).
      return new Promise((resolve) => setImmediate(resolve)).then(() => {
        lastYield = performance.now();
        return why();
      });
    },
  };
}

/**
 * Runs `work` with a signal of its own that aborts when `stop.signal` does (at once when it
 * already has) or `stop.timeoutMs` passes. The promise then rejects with that stop's error right
 * away, even when the work ignores its signal; work that fails once stopped fails with it too.
 * One timer per run, cleared when the run ends.
 */
export async function untilStopped<T>(
  work: (signal: AbortSignal) => T | PromiseLike<T>,
  stop: { signal?: AbortSignal; timeoutMs?: number; aborted: () => Error; timedOut: () => Error },
): Promise<T> {
  const controller = new AbortController();
  let fail!: (error: Error) => void;
  const stopped = new Promise<never>((_, reject) => fail = reject);
  stopped.catch(() => {});
  const end = (error: Error) => {
    controller.abort(error);
    fail(error);
  };
  const onAbort = () => end(stop.aborted());
  if (stop.signal?.aborted) onAbort();
  else stop.signal?.addEventListener("abort", onAbort, { once: true });
  const timer = stop.timeoutMs === undefined
    ? undefined
    : setTimeout(() => end(stop.timedOut()), stop.timeoutMs);
  try {
    return await Promise.race([(async () => await work(controller.signal))(), stopped]);
  } catch (error) {
    throw controller.signal.aborted ? controller.signal.reason : error;
  } finally {
    clearTimeout(timer);
    stop.signal?.removeEventListener("abort", onAbort);
  }
}

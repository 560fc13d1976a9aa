/**
 * Waits for a promise, or rejects with the signal's reason as soon as the signal aborts. The
 * promise keeps running; only the wait ends.
 *
 * @param promise What to wait for.
 * @param signal Ends the wait.
 * @returns The promise's value.
 */
export function raceSignal<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/**
 * Sleeps, or rejects with the signal's reason when it aborts first.
 *
 * @param ms The delay.
 * @param signal Ends the sleep early.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const slept = new Promise<void>((resolve) => timer = setTimeout(resolve, ms));
  return raceSignal(slept, signal).finally(() => clearTimeout(timer));
}

/**
 * Runs `work` with a deadline: past `ms`, `onTimeout` runs (it should stop the work) and the
 * wait rejects with `error()`.
 *
 * @param work The work.
 * @param ms The deadline.
 * @param error Makes the rejection reason.
 * @param onTimeout Stops the work.
 * @returns The work's value.
 */
export async function withDeadline<T>(
  work: Promise<T>,
  ms: number,
  error: () => Error,
  onTimeout?: () => void,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout?.();
      reject(error());
    }, ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
    work.catch(() => {});
  }
}

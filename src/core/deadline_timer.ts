/** One request's deadline in a {@linkcode DeadlineTimer}. */
export interface Deadline {
  /** When it passes (`performance.now()` time). */
  at: number;
  /** Called once when it passes (not after `DeadlineTimer#delete`). */
  readonly expire: () => void;
}

/**
 * Many deadlines on one timer (a gateway connection's requests, a sandbox session's). A timer per request costs more than
 * the rest of a local call's own work; here a request
 * is added to and deleted from a set, and the one timer runs when the earliest deadline may have
 * passed: it expires what is due and is set again for the next. A request that ends leaves the
 * timer as it is (it finds nothing due and is set again, or stops when nothing is left), so a
 * stream of short calls sets it about once per deadline span instead of once per call. `close()`
 * stops it at once; left open and idle, it runs once more within a deadline span and stops.
 */
export class DeadlineTimer {
  #deadlines = new Set<Deadline>();
  #timer?: ReturnType<typeof setTimeout>;
  /** When the timer runs (`performance.now()` time). */
  #due = Infinity;

  /**
   * Adds a deadline `ms` from now.
   *
   * @param ms Milliseconds from now.
   * @param expire Called once when it passes.
   * @returns The deadline, for `delete` and `restart`.
   */
  add(ms: number, expire: () => void): Deadline {
    const deadline = { at: performance.now() + ms, expire };
    this.#deadlines.add(deadline);
    if (deadline.at < this.#due) this.#arm(deadline.at);
    return deadline;
  }

  /**
   * Moves a deadline to `ms` from now.
   *
   * @param ms Milliseconds from now.
   */
  restart(deadline: Deadline, ms: number): void {
    deadline.at = performance.now() + ms;
    if (this.#deadlines.has(deadline) && deadline.at < this.#due) this.#arm(deadline.at);
  }

  /** Removes a deadline: it will not expire. */
  delete(deadline: Deadline): void {
    this.#deadlines.delete(deadline);
  }

  /** Stops the timer; the deadlines left never expire. */
  close(): void {
    this.#deadlines.clear();
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#due = Infinity;
  }

  #arm(at: number): void {
    clearTimeout(this.#timer);
    this.#due = at;
    this.#timer = setTimeout(() => this.#sweep(), Math.max(0, at - performance.now()));
  }

  #sweep(): void {
    this.#timer = undefined;
    this.#due = Infinity;
    const now = performance.now();
    let next = Infinity;
    const expired: Deadline[] = [];
    for (const deadline of this.#deadlines) {
      if (deadline.at <= now) expired.push(deadline);
      else if (deadline.at < next) next = deadline.at;
    }
    for (const deadline of expired) this.#deadlines.delete(deadline);
    if (next !== Infinity) this.#arm(next);
    for (const deadline of expired) {
      try {
        deadline.expire();
      } catch {
        // One request's failure must not stop the others' deadlines.
      }
    }
  }
}

/**
 * Runs `work` with a signal of its own that aborts when `stop.signal` does (at once when it
 * already has) or `stop.timeoutMs` passes. The promise then rejects with that stop's error right
 * away, even when the work ignores its signal; work that fails once stopped fails with it too.
 * One timer per run, cleared when the run ends.
 */
export function untilStopped<T>(
  work: (signal: AbortSignal) => T | PromiseLike<T>,
  stop: { signal?: AbortSignal; timeoutMs?: number; aborted: () => Error; timedOut: () => Error },
): Promise<T> {
  const controller = new AbortController();
  const { signal: outer, timeoutMs } = stop;
  // Nothing can stop this run (nearly every call of a host that sets no deadline or signal): no
  // race to set up, only the run's own signal (on workerd a signal belongs to its request).
  if (outer === undefined && timeoutMs === undefined) return run(work, controller.signal);
  // One promise settled by whichever comes first, the work or a stop (not `Promise.race` over an
  // async wrapper and a second promise: every call pays for those).
  return new Promise<T>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const settle = () => {
      clearTimeout(timer);
      outer?.removeEventListener("abort", onAbort);
    };
    const end = (error: Error) => {
      controller.abort(error);
      settle();
      reject(error);
    };
    const onAbort = () => end(stop.aborted());
    // Stopped already: the promise rejects at once, and the work still runs (as ever; its signal
    // says it was stopped), its own failure handled.
    if (outer?.aborted) onAbort();
    else {
      outer?.addEventListener("abort", onAbort, { once: true });
      if (timeoutMs !== undefined) timer = setTimeout(() => end(stop.timedOut()), timeoutMs);
    }
    run(work, controller.signal).then((value) => {
      settle();
      resolve(value);
    }, (error) => {
      settle();
      reject(controller.signal.aborted ? controller.signal.reason : error);
    });
  });
}

/** Runs the work, its synchronous throw a rejection (a promise of its own, no async frame). */
function run<T>(work: (signal: AbortSignal) => T | PromiseLike<T>, signal: AbortSignal) {
  try {
    return Promise.resolve(work(signal));
  } catch (error) {
    return Promise.reject<T>(error);
  }
}

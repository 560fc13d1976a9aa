import type { SearchBudget } from "./search_budget.ts";

/**
 * The version of `re2js` the worker imports: a worker made from a `blob:` URL (which needs no
 * read permission for toolroute's own files, unlike a worker module on disk) sees no import
 * map, so it names the package as deno.json does (a test compares the two).
 */
export const WORKER_RE2JS = "npm:re2js@^2.10.0";

// Self-contained: the worker cannot import toolroute's modules under the host's least flags.
// It tests a line, and for a line longer than a result shows, finds the shortest start of it
// that still matches (to cut the line around the match), as `line_search.ts` does in process.
const WORKER_CODE = `import { RE2JS } from "${WORKER_RE2JS}";
let key;
let re;
self.onmessage = ({ data }) => {
  const { id, source, flags, line, short } = data;
  try {
    if (key !== source + "\\0" + flags) {
      re = RE2JS.compile(source, flags);
      key = source + "\\0" + flags;
    }
    if (!re.test(line)) return self.postMessage({ id, at: null });
    if (line.length <= short) return self.postMessage({ id, at: 0 });
    let low = 0;
    let high = line.length;
    while (high - low > 64) {
      const middle = (low + high) >> 1;
      if (re.test(line.slice(0, middle))) high = middle;
      else low = middle;
    }
    self.postMessage({ id, at: Math.max(0, high - 200) });
  } catch (error) {
    self.postMessage({ id, error: String(error) });
  }
};`;

/** An RE2 expression as the worker compiles it. */
export interface WorkerExpression {
  /** The RE2 source (after `RE2JS.translateRegExp`). */
  readonly source: string;
  /** The `RE2JS` flags. */
  readonly flags: number;
}

/**
 * Matches lines too long for one short step on the event loop (RE2's time is linear in the line
 * times the expression, and one call cannot be cut short) in a worker thread, started at the
 * first such line of one search and ended with it ({@linkcode LongLineMatcher.close}) or at its
 * deadline, which terminates a match in progress. The host's event loop only waits.
 */
export class LongLineMatcher {
  readonly #expression: WorkerExpression;
  readonly #short: number;
  #worker: Worker | undefined;
  #url: string | undefined;
  #next = 0;
  readonly #pending = new Map<
    number,
    { resolve: (at: number | undefined) => void; reject: (error: unknown) => void }
  >();

  /**
   * @param short A line up to this long needs no position (it is shown whole).
   */
  constructor(expression: WorkerExpression, short: number) {
    this.#expression = expression;
    this.#short = short;
  }

  /**
   * Where a line matches (the position to keep when it is cut), or `undefined`.
   *
   * @param line The line (already cut to what is matched of a long line).
   * @param budget The search's signal and the milliseconds left before its deadline; at either
   *   the worker is terminated and the promise rejects with the budget's `timeout()` error or the
   *   signal's reason.
   * @returns The position, or `undefined`.
   */
  match(
    line: string,
    budget: Pick<SearchBudget, "signal" | "msLeft" | "timeout">,
  ): Promise<number | undefined> {
    const { signal } = budget;
    signal.throwIfAborted();
    const worker = this.#worker ??= this.#start();
    const id = this.#next++;
    return new Promise<number | undefined>((resolve, reject) => {
      const stop = (error: unknown) => {
        this.close();
        reject(error);
      };
      const onAbort = () => stop(signal.reason);
      const timer = setTimeout(() => stop(budget.timeout()), budget.msLeft);
      signal.addEventListener("abort", onAbort, { once: true });
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
      };
      this.#pending.set(id, {
        resolve: (at) => (done(), resolve(at)),
        reject: (error) => (done(), reject(error)),
      });
      worker.postMessage({ id, ...this.#expression, line, short: this.#short });
    });
  }

  /** Ends the worker (`using`). */
  [Symbol.dispose](): void {
    this.close();
  }

  /** Ends the worker; matches still waiting reject. */
  close(): void {
    this.#worker?.terminate();
    this.#worker = undefined;
    if (this.#url !== undefined) URL.revokeObjectURL(this.#url);
    this.#url = undefined;
    this.#rejectAll(new Error("The line matcher was closed"));
  }

  #rejectAll(error: Error): void {
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const { reject } of pending) reject(error);
  }

  #start(): Worker {
    const url = this.#url = URL.createObjectURL(
      new Blob([WORKER_CODE], { type: "text/javascript" }),
    );
    const worker = new Worker(url, { type: "module" });
    worker.onmessage = ({ data }) => {
      const pending = this.#pending.get(data.id);
      if (pending === undefined) return;
      this.#pending.delete(data.id);
      if (data.error !== undefined) pending.reject(new Error(data.error));
      else pending.resolve(data.at ?? undefined);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      this.#worker = undefined;
      this.#rejectAll(new Error(`The line matcher failed: ${event.message}`));
    };
    return worker;
  }
}

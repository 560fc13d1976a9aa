import { ToolError } from "../../../core/tool_error.ts";

/**
 * How often a search lets timers, the abort signal and other callers run, in milliseconds of
 * work: a few, so that no model's search holds the host's event loop longer (one step of work
 * between two ticks is bounded to about as much: `line_search.ts`, `walk_tree.ts`).
 */
const YIELD_EVERY_MS = 4;

/**
 * The entries of a folder a walk goes through between two ticks: a few dozen (a short step even
 * with `.gitignore` rules to check); a tick for every entry cost the walk a third of its time.
 */
export const ENTRIES_PER_TICK = 32;

/**
 * The limits of one search: the call's abort signal, a deadline (the context's
 * `commandTimeoutMs`), and the characters of output left. The walk (per entry of a folder) and
 * `grep` (per slice of matching) call `tick` often: at the first tick and then every few
 * milliseconds of work it yields to the event loop, so that the router's deadline timer, an abort
 * and other callers' work can run (no search holds the event loop from its start to its end).
 */
export class SearchBudget {
  readonly #deadline: number;
  readonly #timeoutMs: number;
  #lastYield = -Infinity; // the first tick yields
  #charsLeft: number;

  /**
   * @param signal The call's abort signal (it also aborts at the call's deadline).
   * @param timeoutMs The search's own deadline, from now.
   * @param outputMaxChars The most characters of output.
   */
  constructor(readonly signal: AbortSignal, timeoutMs: number, outputMaxChars: number) {
    this.#timeoutMs = timeoutMs;
    this.#deadline = performance.now() + timeoutMs;
    this.#charsLeft = outputMaxChars;
  }

  /** The milliseconds left before the deadline (at least 1). */
  get msLeft(): number {
    return Math.max(1, Math.ceil(this.#deadline - performance.now()));
  }

  /** Throws the abort reason, or a `timeout` tool error past the deadline. */
  check(): void {
    this.signal.throwIfAborted();
    if (performance.now() > this.#deadline) throw this.timeout();
  }

  /** Checks the limits; at the first call and every few ms of work, first yields to the event loop. */
  async tick(): Promise<void> {
    const now = performance.now();
    if (now - this.#lastYield >= YIELD_EVERY_MS) {
      // The first tick, before any work, takes an immediate: a 0 ms timeout sleeps a millisecond
      // or two, idle, which every search paid. Between slices of work it must be a timeout: while
      // immediates keep the loop busy, Deno runs timers but polls sockets and pipes only every
      // few dozen turns, so another user's request waited for hundreds of ms of search slices.
      await new Promise((resolve) =>
        this.#lastYield === -Infinity ? setImmediate(resolve) : setTimeout(resolve, 0)
      );
      this.#lastYield = performance.now();
    }
    this.check();
  }

  /**
   * Takes characters of output: `false` (taking nothing) when they do not fit any more.
   *
   * @param chars The characters one more result costs.
   * @returns Whether it fits.
   */
  take(chars: number): boolean {
    if (chars > this.#charsLeft) return false;
    this.#charsLeft -= chars;
    return true;
  }

  /**
   * The error of a search stopped at its deadline.
   *
   * @returns The `timeout` tool error.
   */
  timeout(): ToolError {
    return new ToolError(
      "timeout",
      `The search took longer than ${this.#timeoutMs} ms and was stopped: narrow it with "path" or a more specific pattern`,
    );
  }
}

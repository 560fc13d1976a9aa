import { ToolError } from "../../../core/tool_error.ts";
import type { BashInvocation } from "./bash_invocation.ts";
import { BackgroundProcess, type ProcessInfo } from "./background_process.ts";
import type { ResolvedContext } from "../builtin_context.ts";

/** Most background processes running at once per context. */
export const MAX_RUNNING_PROCESSES = 16;
/** Most ended processes remembered (for `status` and `logs`) per context. */
export const MAX_ENDED_PROCESSES = 32;

/**
 * The background processes of one built-in context (`bash` actions `start` … `list`).
 *
 * Each process runs in its own process group with a bounded log of `processLogChars`
 * characters. `close()` (or `await using`) kills every one of them; the host exiting kills them
 * too (see `process_reaper.ts`).
 */
export class ProcessTable implements AsyncDisposable {
  readonly #logChars: number;
  readonly #processes = new Map<string, BackgroundProcess>();
  #next = 1;
  #closed?: Promise<void>;
  /** What runs once a process ended (its last disk measure and walk): `close()` waits for it. */
  #afterEnd = new Set<Promise<unknown>>();

  /**
   * Creates the empty table of a context.
   *
   * @param ctx The resolved context (its `processLogChars` bounds each log).
   */
  constructor(ctx: ResolvedContext) {
    this.#logChars = ctx.processLogChars;
  }

  /**
   * Starts a background process.
   *
   * @returns Its state right after the start.
   */
  start(invocation: BashInvocation): ProcessInfo {
    if (this.#closed !== undefined) {
      throw new ToolError("tool_error", "Cannot start a process: the built-in tools were closed");
    }
    const running = [...this.#processes.values()].filter((p) => p.running).length;
    if (running >= MAX_RUNNING_PROCESSES) {
      throw new ToolError(
        "tool_error",
        `Cannot start a process: ${running} are running, the most allowed; stop one first`,
      );
    }
    this.#forgetOldEnded();
    const id = `p${this.#next++}`;
    const process = new BackgroundProcess(id, invocation, this.#logChars);
    this.#processes.set(id, process);
    return process.info();
  }

  /**
   * Finds a process by id, or throws a `tool_error` naming the known ids.
   *
   * @param processId The id, such as `"p1"`.
   */
  get(processId: string): BackgroundProcess {
    const process = this.#processes.get(processId);
    if (process !== undefined) return process;
    const known = [...this.#processes.keys()];
    throw new ToolError(
      "tool_error",
      `Unknown processId "${processId}". ${
        known.length === 0
          ? 'No background processes exist; start one with action "start"'
          : `Known: ${known.join(", ")}`
      }`,
    );
  }

  /** Every known process, oldest first. */
  list(): ProcessInfo[] {
    return [...this.#processes.values()].map((p) => p.info());
  }

  /**
   * Keeps work that follows a process's end (see `containWhenEnded`), so that `close()` returns
   * only once it is done: nothing of the table's runs on after it.
   *
   * @param work The work, from the process's start on.
   */
  afterEnd(work: Promise<unknown>): void {
    const settled = () => void this.#afterEnd.delete(kept);
    const kept = work.then(settled, settled);
    this.#afterEnd.add(kept);
  }

  /** Kills every process (SIGKILL to each group), waits for them and what follows their end. */
  close(): Promise<void> {
    this.#closed ??= Promise.all([...this.#processes.values()].map((p) => p.stop(0)))
      .then(() => Promise.all(this.#afterEnd)).then(() => {});
    return this.#closed;
  }

  /** Same as {@linkcode ProcessTable#close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #forgetOldEnded(): void {
    // Only processes with nothing left (pipes closed) are forgotten; close() still ends the rest.
    const ended = [...this.#processes.entries()].filter(([, p]) => p.settled);
    for (const [id] of ended.slice(0, Math.max(0, ended.length - MAX_ENDED_PROCESSES + 1))) {
      this.#processes.delete(id);
    }
  }
}

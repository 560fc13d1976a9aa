import { deadline } from "@std/async";
import { ToolError } from "../../../core/tool_error.ts";
import { type BashInvocation, PIPE_GRACE_MS, spawnOnHost } from "./bash_invocation.ts";
import { drainInto } from "../command/bounded_output.ts";
import { LogBuffer, type LogSlice } from "../command/log_buffer.ts";
import { reap, type ReapTarget, trackForExit } from "./process_reaper.ts";

/** What `status` and `list` report about a background process. */
export interface ProcessInfo {
  /** The id the model uses, such as `"p1"`. */
  processId: string;
  /** The command text. */
  command: string;
  /** Whether it is still running. */
  running: boolean;
  /** The exit code once it ended (128 + N after signal N), else `null`. */
  exitCode: number | null;
  /** When it started (ISO 8601). */
  startedAt: string;
  /** Offset just past the last character of its log (stdout and stderr interleaved). */
  logEnd: number;
}

// How long `stop` waits after SIGTERM before SIGKILL.
const STOP_GRACE_MS = 2000;

/** One command running in the background, its stdin open and its output in a bounded log. */
export class BackgroundProcess {
  readonly #id: string;
  readonly #command: string;
  readonly #startedAt = new Date().toISOString();
  readonly #child: Deno.ChildProcess;
  readonly #target: ReapTarget;
  readonly #log: LogBuffer;
  readonly #stdin: WritableStreamDefaultWriter<Uint8Array>;
  readonly #stopReading = new AbortController();
  #pendingWrite: Promise<void> | undefined;
  #exitCode: number | null = null;
  #settled = false;
  /** Resolves when the process ended and its output was read to the end. */
  readonly finished: Promise<void>;

  /**
   * Spawns the command.
   *
   * @param logChars Most characters kept in the log.
   */
  constructor(id: string, invocation: BashInvocation, logChars: number) {
    this.#id = id;
    this.#command = invocation.command;
    this.#log = new LogBuffer(logChars);
    this.#child = invocation.spawn?.() ?? spawnOnHost(invocation, "piped");
    this.#stdin = this.#child.stdin.getWriter();
    this.#target = invocation.target(this.#child);
    const untrack = trackForExit(this.#target);
    const status = this.#child.status.then((s) => {
      this.#exitCode = s.code;
      // The process is gone: release its stdin (a write to a closed pipe would fail anyway).
      return this.#stdin.abort().catch(() => {});
    });
    this.finished = Promise.all([
      status,
      drainInto(this.#child.stdout, this.#log, { stop: this.#stopReading.signal }).catch(() => {}),
      drainInto(this.#child.stderr, this.#log, { stop: this.#stopReading.signal }).catch(() => {}),
    ]).then(() => {
      this.#settled = true;
      untrack();
    });
  }

  /** Whether it ended and its output was read to the end (nothing of it is left). */
  get settled(): boolean {
    return this.#settled;
  }

  /** Whether it is still running. */
  get running(): boolean {
    return this.#exitCode === null;
  }

  /** Its state, for `status` and `list`. */
  info(): ProcessInfo {
    return {
      processId: this.#id,
      command: this.#command,
      running: this.running,
      exitCode: this.#exitCode,
      startedAt: this.#startedAt,
      logEnd: this.#log.end,
    };
  }

  /**
   * Reads its log.
   *
   * @param offset Where to start; default: the oldest kept character.
   * @param limit Most characters returned.
   */
  logs(offset?: number, limit?: number): LogSlice {
    return this.#log.read(offset, limit);
  }

  /**
   * Writes text to its stdin.
   *
   * A process that does not read its stdin cannot hang the call: past `timeoutMs` (or at the
   * signal's abort) the call ends and the input stays queued; a second write is refused while
   * one is still pending.
   *
   * @param limits The call's deadline and signal.
   * @returns How many bytes were written.
   */
  async write(input: string, limits: { timeoutMs: number; signal?: AbortSignal }): Promise<number> {
    if (this.#pendingWrite !== undefined) {
      throw new ToolError(
        "tool_error",
        "The process has not read the previous input yet; read its logs, or stop it",
      );
    }
    const bytes = new TextEncoder().encode(input);
    const written = this.#stdin.write(bytes);
    this.#pendingWrite = written;
    written.then(() => this.#pendingWrite = undefined, () => this.#pendingWrite = undefined);
    await deadline(written, limits.timeoutMs, { signal: limits.signal }).catch((error: unknown) => {
      // The call's own signal may carry a TimeoutError too: its reason passes on unchanged.
      const ours = error instanceof DOMException && error.name === "TimeoutError";
      if (!ours || limits.signal?.aborted) throw error;
      throw new ToolError(
        "timeout",
        `The process did not take its input within ${limits.timeoutMs} ms; the input stays ` +
          "queued and is delivered if it reads its stdin",
      );
    });
    return bytes.length;
  }

  /**
   * Ends its whole process group: SIGTERM, then SIGKILL after a grace period (or at once).
   *
   * Pipes still held afterwards by a process that left the group (its own `setsid`) are
   * abandoned, so this always returns.
   *
   * @param graceMs How long to wait after SIGTERM; 0 sends SIGKILL at once.
   */
  async stop(graceMs: number = STOP_GRACE_MS): Promise<void> {
    if (this.running && graceMs > 0) {
      await reap(this.#target, "SIGTERM");
      await deadline(this.#child.status, graceMs).catch(() => {});
    }
    // While its pipes are open the group still has members (also after the leader's exit).
    if (!this.#settled) await reap(this.#target, "SIGKILL");
    const abandon = setTimeout(() => this.#stopReading.abort(), PIPE_GRACE_MS);
    await this.finished;
    clearTimeout(abandon);
  }
}

import { deadline } from "@std/async";
import { DeadlineTimer } from "../../core/deadline_timer.ts";
import { ToolError } from "../../core/tool_error.ts";
import { sessionEnded, sessionExited } from "./session_ended.ts";
import {
  encodeFrame,
  type FinalAnswer,
  FrameReader,
  parseFinalAnswer,
  type SessionFrame,
  type SupervisorRequest,
} from "./protocol.ts";
import {
  launchSession,
  PROXY_PORT,
  PROXY_SOCKET_INSIDE,
  type SessionSetup,
  stopSandbox,
} from "./session_launch.ts";
import { type LimitsKind, SessionStderr } from "./session_stderr.ts";

// bubblewrap before its use of mount_setattr (0.8, Debian's, among them) reads the whole mount
// table again after each bind it makes, so its setup grows with the square of the binds: a
// workspace with many repositories (a protected entry and its pinned directory each) spends far
// longer there than the supervisor takes to start, and nothing on the host can make it shorter.
// The start deadline grows the same way: `startTimeoutMs` once more for every BINDS_PER_START
// binds, squared (about the binds bubblewrap makes in the time a supervisor starts).
const BINDS_PER_START = 500;

function startDeadline(setup: SessionSetup): number {
  const { readOnlyRoots, protectedPaths = [], pinnedDirs = [] } = setup.mounts;
  const binds = readOnlyRoots.length + protectedPaths.length + pinnedDirs.length;
  return Math.round(setup.startTimeoutMs * (1 + (binds / BINDS_PER_START) ** 2));
}

/** How one request waits. */
export interface RequestOptions {
  /**
   * The deadline: then the whole session is ended (a hung supervisor) and this is the error.
   * `Infinity` for none.
   */
  readonly timeoutMs: number;
  /** The error at the deadline. */
  readonly onTimeout: () => ToolError;
  /** Receives `stream` frames of an `exec`. */
  readonly onStream?: (stream: 1 | 2, bytes: Uint8Array) => void;
  /** Learns the request's id (to `cancel` it). */
  readonly onId?: (id: number) => void;
}

// A request waiting for its answer.
interface PendingRequest {
  resolve(frame: SessionFrame): void;
  reject(error: unknown): void;
  onStream?: (stream: 1 | 2, bytes: Uint8Array) => void;
}

// The most bytes of the supervisor's output read at once.
const READ_CHUNK = 64 * 1024;
// The operations the supervisor serves over many turns of its event loop (see `request`).
const LONG_SERVED: ReadonlySet<string> = new Set(["exec", "list", "grep"]);

/**
 * One long-lived bubblewrap sandbox with a supervisor inside, driven over its stdin and stdout
 * (see `supervisor/supervisor_script.ts`). Every answer is validated; a supervisor that dies,
 * hangs past a request's deadline or answers out of protocol ends the session: every waiting
 * request fails with a clear `tool_error`, and the caller starts a fresh session next time.
 *
 * Nothing outlives the host: bubblewrap runs with `--die-with-parent`, the supervisor exits
 * when its stdin closes, and killing bubblewrap ends the sandbox's PID namespace.
 */
export class SandboxSession {
  #child: Deno.ChildProcess;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  // The requests sent and not answered yet, by id (0 is the supervisor's `ready`).
  #requests = new Map<number, PendingRequest>();
  #nextId = 1;
  #ended?: ToolError;
  #bystander?: ToolError;
  #stderr: SessionStderr;
  #ready: Promise<void>;
  #onEnd = new Set<() => void>();
  #wrapped: boolean;
  // The deadlines of the requests waiting, on one timer (a timer per request cost as much as a
  // fifth of a round trip).
  #deadlines = new DeadlineTimer();
  /** Which session-wide limit holds: a cgroup (v2 or v1), or `"none"` (rlimits only). */
  get limitsKind(): LimitsKind | undefined {
    return this.#stderr.limitsKind;
  }
  /** The mounts it was started with, as a comparable key. */
  readonly mountsKey: string;
  /** Requests sent and not answered yet. */
  get inFlight(): number {
    return this.#requests.size;
  }
  /** Whether it ended (closed, died or broke the protocol). */
  get ended(): boolean {
    return this.#ended !== undefined;
  }

  private constructor(child: Deno.ChildProcess, setup: SessionSetup) {
    this.#child = child;
    this.#wrapped = setup.wrap !== undefined;
    this.mountsKey = JSON.stringify(setup.mounts);
    this.#writer = child.stdin.getWriter();
    const ready = Promise.withResolvers<void>();
    this.#ready = ready.promise;
    this.#ready.catch(() => {});
    this.#requests.set(0, { resolve: () => ready.resolve(), reject: ready.reject });
    this.#stderr = new SessionStderr(child.stderr);
    void this.#readFrames();
    void child.status.then(async (status) => {
      // The exit can be seen before the last of stderr is read: the cause is in it.
      await deadline(this.#stderr.done, 500).catch(() => {});
      this.#end(sessionExited(status.code, this.#stderr.text));
    });
  }

  /**
   * Starts a session and waits for its supervisor to be ready. Throws a `ToolError` when
   * bubblewrap is missing or fails, or the supervisor does not start in time.
   *
   * Requires `allow-run` permission for `bwrap`.
   *
   * @tags allow-run
   * @param setup The mounts, PATH and start deadline.
   * @returns The ready session.
   */
  static async start(setup: SessionSetup): Promise<SandboxSession> {
    const child = launchSession(setup);
    const session = new SandboxSession(child, setup);
    const startMs = startDeadline(setup);
    const timer = setTimeout(
      () => session.#end(sessionEnded(`its supervisor did not start within ${startMs} ms`)),
      startMs,
    );
    // Inside, 127.0.0.1:3128 leads to the proxy's socket: the sandbox's only way out. Asked for
    // at once (the supervisor reads it once it is ready): no round trip of its own.
    const bridged = setup.proxySocket === undefined ? undefined : session.request(
      { op: "net", path: PROXY_SOCKET_INSIDE, port: PROXY_PORT },
      undefined,
      {
        timeoutMs: startMs + setup.startTimeoutMs,
        onTimeout: () => sessionEnded("its supervisor did not open the proxy's port in time"),
      },
    );
    bridged?.catch(() => {});
    try {
      await session.#ready;
      if (bridged !== undefined) {
        const answer = await bridged;
        if (answer.header.ok === undefined) {
          await session.close();
          throw sessionEnded("its supervisor could not open the proxy's port");
        }
      }
    } finally {
      clearTimeout(timer);
    }
    return session;
  }

  /**
   * Sends one request and waits for its final answer (`ok`, `error` or `exit`), validated for
   * the operation asked (`protocol.ts`): an answer out of protocol ends the session, and this
   * throws its error.
   *
   * @param header The request (`op` and its fields; the id is added).
   * @param body Its body.
   * @param options The deadline and the `exec` output receiver.
   * @returns The answer and its body.
   */
  async request<R extends SupervisorRequest>(
    header: R,
    body: Uint8Array | undefined,
    options: RequestOptions,
  ): Promise<{ header: FinalAnswer<R["op"]>; body: Uint8Array }> {
    if (this.#bystander !== undefined) throw this.#bystander;
    const id = this.#nextId++;
    options.onId?.(id);
    const answer = new Promise<SessionFrame>((resolve, reject) => {
      this.#requests.set(id, { resolve, reject, onStream: options.onStream });
    });
    // No deadline for a background process (and its stdin), which may run for long. A request
    // past its deadline means a hung supervisor: the session ends.
    const deadline = Number.isFinite(options.timeoutMs)
      ? this.#deadlines.add(options.timeoutMs, () => this.#end(options.onTimeout(), id))
      : undefined;
    try {
      await this.#writer.write(encodeFrame({ ...header, id }, body));
      const frame = await answer;
      const final = parseFinalAnswer(header.op as R["op"], frame.header);
      if (typeof final === "string") throw this.fail(`it sent ${final}`);
      // While a long operation ran, the supervisor's read of its next request went through
      // Deno's thread pool and is still pending: a ping takes it now, while the caller finishes
      // its own work, so that the next request is read on the supervisor's main thread (one
      // wake-up fewer for the call after a command or a search).
      if (LONG_SERVED.has(header.op) && this.#requests.size === 0) this.notify({ op: "ping" });
      return { header: final, body: frame.body };
    } catch (error) {
      // A failed write means the pipe closed: the session ended, say how.
      throw error instanceof ToolError ? error : (this.#bystander ?? error);
    } finally {
      if (deadline !== undefined) this.#deadlines.delete(deadline);
      this.#requests.delete(id);
    }
  }

  /**
   * Sends a request whose answer nobody waits for (such as `cancel`).
   */
  notify(header: SupervisorRequest): void {
    if (this.#ended !== undefined) return;
    const id = this.#nextId++;
    this.#requests.set(id, { resolve: () => this.#requests.delete(id), reject: () => {} });
    this.#writer.write(encodeFrame({ ...header, id })).catch(() => {});
  }

  /**
   * Ends the session because its supervisor broke the protocol (an answer that is not what was
   * asked for: it may be under the control of a command), and returns the error to throw.
   *
   * @param why What was wrong with the answer.
   */
  fail(why: string): ToolError {
    const error = sessionEnded(`its supervisor answered out of protocol (${why})`);
    this.#end(error);
    return this.#ended ?? error;
  }

  /**
   * Calls `listener` once when the session ends.
   */
  onEnd(listener: () => void): void {
    if (this.#ended !== undefined) listener();
    else this.#onEnd.add(listener);
  }

  /** Ends the session: the sandbox and everything in it is killed. */
  async close(): Promise<void> {
    this.#end(sessionEnded("it was closed"));
    await this.#child.status;
  }

  #end(error: ToolError, culprit?: number): void {
    if (this.#ended !== undefined) return;
    this.#ended = error;
    this.#bystander = culprit === undefined ? error : sessionEnded(
      "another call in it passed its deadline, and the whole sandbox was stopped",
    );
    this.#deadlines.close();
    stopSandbox(this.#child, this.#wrapped);
    this.#writer.close().catch(() => {});
    const waiting = [...this.#requests];
    this.#requests.clear();
    for (const [id, request] of waiting) request.reject(id === culprit ? error : this.#bystander);
    for (const listener of this.#onEnd) listener();
    this.#onEnd.clear();
  }

  async #readFrames(): Promise<void> {
    const frames = new FrameReader();
    try {
      // A reader, not `for await`: the async iterator adds a promise layer per chunk. Reading
      // into one buffer again and again (`byob`): the default reader allocates 64 KiB per read.
      const reader = this.#child.stdout.getReader({ mode: "byob" });
      let buffer = new Uint8Array(READ_CHUNK);
      for (;;) {
        const { done, value } = await reader.read(buffer);
        if (done || value === undefined) break;
        for (const frame of frames.push(value)) dispatch(this.#requests, frame);
        // The read took the buffer over; its bytes are consumed (`push` keeps copies).
        buffer = new Uint8Array(value.buffer);
      }
    } catch (error) {
      this.fail(error instanceof Error ? error.message : String(error));
    }
  }
}

/**
 * Hands an answer frame to its request: `ready` (id 0), a `stream` chunk of an `exec`, or the
 * final `ok`, `error` or `exit`. A frame that answers nothing or is not an answer throws a
 * `RangeError`: the supervisor broke the protocol, the session must end.
 */
function dispatch(requests: Map<number, PendingRequest>, frame: SessionFrame): void {
  const { id } = frame.header;
  const pending = typeof id === "number" ? requests.get(id) : undefined;
  if (pending === undefined) throw new RangeError(`an answer to no request (id ${id})`);
  if (id === 0) {
    if (typeof frame.header.ready !== "object") throw new RangeError("no ready message");
    requests.delete(0);
    pending.resolve(frame);
  } else if ("stream" in frame.header) {
    const stream = frame.header.stream;
    if ((stream !== 1 && stream !== 2) || pending.onStream === undefined) {
      throw new RangeError("an output stream where none is expected");
    }
    pending.onStream(stream, frame.body);
  } else if ("ok" in frame.header || "error" in frame.header || "exit" in frame.header) {
    requests.delete(id as number);
    pending.resolve(frame);
  } else {
    throw new RangeError("an answer without ok, error or exit");
  }
}

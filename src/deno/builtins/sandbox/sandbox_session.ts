import { ToolError } from "../../../core/tool_error.ts";
import { bwrapCommand, type BwrapOptions } from "./bwrap_command.ts";
import { bwrapMissing, sandboxFailure } from "./sandbox_failure.ts";
import { encodeFrame, FrameReader, type SessionFrame } from "./session_frames.ts";
import { supervisorMain } from "./session_supervisor.ts";

/** What a session shows and how it starts. */
export interface SessionSetup {
  /** The mounts (workspace, read-only roots, protected paths). */
  readonly mounts: Pick<BwrapOptions, "workspace" | "readOnlyRoots" | "protectedPaths">;
  /** The environment of the `bwrap` process: only PATH (to find programs). */
  readonly path: string;
  /** How long the supervisor may take to start, in milliseconds. */
  readonly startTimeoutMs: number;
  /** The host directory of the network proxy's socket, when the sandbox may reach the network. */
  readonly proxyDirectory?: string;
  /** Wraps the `bwrap` program and arguments (resource limits); default: unchanged. */
  readonly wrap?: (program: string, args: string[]) => { program: string; args: string[] };
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

interface Pending {
  resolve(frame: SessionFrame): void;
  reject(error: unknown): void;
  onStream?: (stream: 1 | 2, bytes: Uint8Array) => void;
}

// Where the host's deno binary appears inside the sandbox.
const DENO_INSIDE = "/.toolroute/deno";
// Where the proxy's socket directory appears, and the port the supervisor bridges to it.
const PROXY_INSIDE = "/.toolroute/net";
/** The proxy's address inside a sandbox with a network allowlist. */
export const PROXY_URL = "http://127.0.0.1:3128";
// The supervisor's home (Deno keeps its cache there): a tmpfs of its own, not in /tmp.
const HOME_INSIDE = "/.toolroute/home";
const SOURCE = `await (${supervisorMain.toString()})();`;
const SCRIPT = `data:application/javascript;base64,${btoa(SOURCE)}`;

/**
 * One long-lived bubblewrap sandbox with a supervisor inside, driven over its stdin and stdout
 * (see `session_supervisor.ts`). Every answer is validated; a supervisor that dies, hangs past a
 * request's deadline or answers out of protocol ends the session: every waiting request fails
 * with a clear `tool_error`, and the caller starts a fresh session next time.
 *
 * Nothing outlives the host: bubblewrap runs with `--die-with-parent`, the supervisor exits
 * when its stdin closes, and killing bubblewrap ends the sandbox's PID namespace.
 */
export class SandboxSession {
  #child: Deno.ChildProcess;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #pending = new Map<number, Pending>();
  #nextId = 1;
  #ended?: ToolError;
  #bystander?: ToolError;
  #stderr = "";
  #ready: Promise<void>;
  #onEnd = new Set<() => void>();
  #wrapped: boolean;
  /** Which session-wide limit holds: a cgroup (v2 or v1), or `"none"` (rlimits only). */
  limitsKind?: "cgroup2" | "cgroup1" | "none";
  /** The mounts it was started with, as a comparable key. */
  readonly mountsKey: string;
  /** Requests sent and not answered yet. */
  get inFlight(): number {
    return this.#pending.size;
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
    let ready!: () => void;
    let failed!: (error: unknown) => void;
    this.#ready = new Promise((resolve, reject) => (ready = resolve, failed = reject));
    this.#ready.catch(() => {});
    this.#pending.set(0, { resolve: () => ready(), reject: (error) => failed(error) });
    const stderrRead = this.#readStderr();
    void this.#readFrames();
    void child.status.then(async (status) => {
      // The exit can be seen before the last of stderr is read: the cause is in it.
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        stderrRead.catch(() => {}),
        new Promise((resolve) => timer = setTimeout(resolve, 500)),
      ]);
      clearTimeout(timer);
      const failure = /bubblewrap \(bwrap\) is not installed/.test(this.#stderr)
        ? bwrapMissing("session")
        : sandboxFailure(status.code, "", this.#stderr, "session");
      this.#end(
        failure !== undefined ? new ToolError("tool_error", failure) : ended(
          `its supervisor exited (code ${status.code}${
            this.#stderr.trim() === "" ? "" : `: ${lastLine(this.#stderr)}`
          })`,
        ),
      );
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
    const args = bwrapCommand({
      ...setup.mounts,
      extras: [
        { source: Deno.execPath(), dest: DENO_INSIDE },
        ...(setup.proxyDirectory === undefined
          ? []
          : [{ source: setup.proxyDirectory, dest: PROXY_INSIDE }]),
      ],
      scratch: HOME_INSIDE,
      cwd: setup.mounts.workspace.dest,
      command: [
        DENO_INSIDE,
        "run",
        "--quiet",
        "--no-prompt",
        "--no-config",
        "--no-lock",
        // Deno needs all permissions to read /proc (to end a command's processes) and
        // --allow-run lets a child do anything anyway: the namespace is the boundary.
        "--allow-all",
        SCRIPT,
      ],
    });
    const spawned = setup.wrap?.("bwrap", args) ?? { program: "bwrap", args };
    let child: Deno.ChildProcess;
    try {
      child = new Deno.Command(spawned.program, {
        args: spawned.args,
        // Commands can read the supervisor's environment: only names they have anyway.
        env: { PATH: setup.path, HOME: HOME_INSIDE },
        clearEnv: true,
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      throw new ToolError("tool_error", bwrapMissing("session"), { cause: error });
    }
    const session = new SandboxSession(child, setup);
    const timer = setTimeout(
      () => session.#end(ended(`its supervisor did not start within ${setup.startTimeoutMs} ms`)),
      setup.startTimeoutMs,
    );
    try {
      await session.#ready;
      if (setup.proxyDirectory !== undefined) {
        // Inside, 127.0.0.1:3128 leads to the proxy's socket: the sandbox's only way out.
        const answer = await session.request(
          { op: "net", path: `${PROXY_INSIDE}/proxy.sock`, port: 3128 },
          undefined,
          {
            timeoutMs: setup.startTimeoutMs,
            onTimeout: () => ended("its supervisor did not open the proxy's port in time"),
          },
        );
        if (answer.header.ok === undefined) {
          await session.close();
          throw ended("its supervisor could not open the proxy's port");
        }
      }
    } finally {
      clearTimeout(timer);
    }
    return session;
  }

  /**
   * Sends one request and waits for its answer (`ok`, `error` or `exit`), which is returned
   * as received: the caller validates its fields.
   *
   * @param header The request (`op` and its fields; the id is added).
   * @param body Its body.
   * @param options The deadline and the `exec` output receiver.
   * @returns The answer.
   */
  async request(
    header: Record<string, unknown>,
    body: Uint8Array | undefined,
    options: RequestOptions,
  ): Promise<SessionFrame> {
    if (this.#bystander !== undefined) throw this.#bystander;
    const id = this.#nextId++;
    options.onId?.(id);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const answer = new Promise<SessionFrame>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, onStream: options.onStream });
      // No deadline for a background process (and its stdin), which may run for long.
      if (Number.isFinite(options.timeoutMs)) {
        timer = setTimeout(() => this.#end(options.onTimeout(), id), options.timeoutMs);
      }
    });
    try {
      await this.#writer.write(encodeFrame({ ...header, id }, body));
      return await answer;
    } catch (error) {
      // A failed write means the pipe closed: the session ended, say how.
      throw error instanceof ToolError ? error : (this.#bystander ?? error);
    } finally {
      clearTimeout(timer);
      this.#pending.delete(id);
    }
  }

  /**
   * Sends a request whose answer nobody waits for (such as `cancel`).
   *
   * @param header The request.
   */
  notify(header: Record<string, unknown>): void {
    if (this.#ended !== undefined) return;
    const id = this.#nextId++;
    this.#pending.set(id, { resolve: () => this.#pending.delete(id), reject: () => {} });
    this.#writer.write(encodeFrame({ ...header, id })).catch(() => {});
  }

  /**
   * Ends the session because its supervisor broke the protocol (an answer that is not what was
   * asked for: it may be under the control of a command), and returns the error to throw.
   *
   * @param why What was wrong with the answer.
   * @returns The error.
   */
  fail(why: string): ToolError {
    const error = ended(`its supervisor answered out of protocol (${why})`);
    this.#end(error);
    return this.#ended ?? error;
  }

  /**
   * Calls `listener` once when the session ends.
   *
   * @param listener The function.
   */
  onEnd(listener: () => void): void {
    if (this.#ended !== undefined) listener();
    else this.#onEnd.add(listener);
  }

  /** Ends the session: the sandbox and everything in it is killed. */
  async close(): Promise<void> {
    this.#end(ended("it was closed"));
    await this.#child.status;
  }

  #end(error: ToolError, culprit?: number): void {
    if (this.#ended !== undefined) return;
    this.#ended = error;
    if (this.#wrapped) {
      // The limits wrapper kills bubblewrap on TERM and then removes the session's cgroups.
      try {
        this.#child.kill("SIGTERM");
      } catch {
        // It ended already.
      }
      const last = setTimeout(() => {
        try {
          this.#child.kill("SIGKILL");
        } catch {
          // It ended already.
        }
      }, 3000);
      void this.#child.status.then(() => clearTimeout(last));
    }
    this.#bystander = culprit === undefined
      ? error
      : ended("another call in it passed its deadline, and the whole sandbox was stopped");
    if (!this.#wrapped) {
      try {
        this.#child.kill("SIGKILL");
      } catch {
        // It ended already.
      }
    }
    this.#writer.close().catch(() => {});
    for (const [id, pending] of this.#pending) {
      pending.reject(id === culprit ? error : this.#bystander);
    }
    this.#pending.clear();
    for (const listener of this.#onEnd) listener();
    this.#onEnd.clear();
  }

  async #readFrames(): Promise<void> {
    const frames = new FrameReader();
    try {
      for await (const chunk of this.#child.stdout) {
        for (const frame of frames.push(chunk)) this.#dispatch(frame);
      }
    } catch (error) {
      this.#end(ended(`its supervisor answered out of protocol (${reason(error)})`));
    }
  }

  #dispatch(frame: SessionFrame): void {
    const { id } = frame.header;
    const pending = typeof id === "number" ? this.#pending.get(id) : undefined;
    if (pending === undefined) throw new RangeError(`an answer to no request (id ${id})`);
    if (id === 0) {
      if (typeof frame.header.ready !== "object") throw new RangeError("no ready message");
      this.#pending.delete(0);
      pending.resolve(frame);
    } else if ("stream" in frame.header) {
      const stream = frame.header.stream;
      if ((stream !== 1 && stream !== 2) || pending.onStream === undefined) {
        throw new RangeError("an output stream where none is expected");
      }
      pending.onStream(stream, frame.body);
    } else if ("ok" in frame.header || "error" in frame.header || "exit" in frame.header) {
      this.#pending.delete(id as number);
      pending.resolve(frame);
    } else {
      throw new RangeError("an answer without ok, error or exit");
    }
  }

  async #readStderr(): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of this.#child.stderr) {
      // Only the tail is kept: for the error of a session that ends. The first line of the
      // resource-limit wrapper says which limits hold.
      let text = this.#stderr + decoder.decode(chunk, { stream: true });
      const limits = /^toolroute-limits: (cgroup2|cgroup1|none)\n/.exec(text);
      if (limits !== null && this.limitsKind === undefined) {
        this.limitsKind = limits[1] as "cgroup2" | "cgroup1" | "none";
        text = text.slice(limits[0].length);
      }
      this.#stderr = text.slice(-4096);
    }
  }
}

function ended(why: string): ToolError {
  return new ToolError(
    "tool_error",
    `The sandbox session ended: ${why}. Nothing more ran in it; call again to start a fresh sandbox`,
  );
}

function lastLine(text: string): string {
  return (text.trim().split("\n").at(-1) ?? "").slice(0, 200);
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

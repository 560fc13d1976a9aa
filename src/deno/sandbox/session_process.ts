import { ToolError } from "../../core/tool_error.ts";
import type { SandboxSession } from "./sandbox_session.ts";
import type { RequestOf, SupervisorRequest } from "./protocol.ts";
import { quietly } from "./quietly.ts";

/** A use of a session; `release` it when done. */
export interface SessionLease {
  /** The session. */
  readonly session: SandboxSession;
  /**
   * Ends this use (the session may then close when idle). A lease that ends its session returns
   * the session's end: the process's `status` settles only after it.
   */
  release(): void | Promise<void>;
}

/**
 * A background command to start in a session: its text (run by `bash -c`), the bash code run
 * first (the resource limits), its working directory inside the sandbox and its whole
 * environment.
 */
export type SessionSpawn = Omit<RequestOf<"spawn">, "op" | "stdio">;

/** Options of {@linkcode spawnInSession}. */
export interface SessionSpawnOptions {
  /**
   * The host's pipes to the process (a stand-in's, see `stdioStandIn`), passed to the session
   * at its launch (`SessionSetup.stdioPid`): the process takes them over as its stdin, stdout
   * and stderr, and its bytes pass no supervisor. Default: its pipes are the session's frames.
   */
  readonly stdio?: Pick<Deno.ChildProcess, "stdin" | "stdout" | "stderr">;
  /**
   * Called with how the process ended as the supervisor reported it (before `status` settles):
   * `oom` says the memory limit killed it. Not called when the session ended under it.
   */
  readonly onExit?: (exit: { readonly code: number; readonly oom?: boolean }) => void;
}

/**
 * Starts a background process in a sandbox session and returns it in the shape of a
 * `Deno.ChildProcess` (stdin, stdout, stderr, status, kill), so that `BackgroundProcess` manages
 * it as any other child. `kill` signals its whole process group inside the sandbox. The lease is
 * held until the process ended (the session does not idle-close under it); `status` settles once
 * the lease is released (for a lease that ends its session: once the session ended). A session
 * that ends ends the process (exit code 137).
 *
 * @param lease The session lease, released when the process ended.
 * @param spawn The command, limits prefix, directory and environment.
 * @param options The pipes passed to the session, if any.
 * @returns The child-process view.
 */
export function spawnInSession(
  lease: SessionLease,
  spawn: SessionSpawn,
  options: SessionSpawnOptions = {},
): Deno.ChildProcess {
  const passed = options.stdio;
  const session = lease.session;
  const controllers: Partial<Record<1 | 2, ReadableStreamDefaultController<Uint8Array>>> = {};
  const stream = (which: 1 | 2) =>
    new ReadableStream<Uint8Array>({
      start: (controller) => void (controllers[which] = controller),
    });
  const stdout = stream(1);
  const stderr = stream(2);
  // Given at once by `onId` (0 names no request: a request's id starts at 1).
  let id = 0;
  const forever = {
    timeoutMs: Infinity,
    onTimeout: () => new ToolError("timeout", "A background process has no deadline"),
  };
  const ask = (header: SupervisorRequest, body?: Uint8Array) =>
    session.request(header, body, forever);
  const request = passed === undefined ? { ...spawn } : { ...spawn, stdio: "passed" as const };
  const status = session.request({ op: "spawn", ...request }, undefined, {
    ...forever,
    onId: (sent) => id = sent,
    onStream: (which, bytes) => controllers[which]?.enqueue(bytes),
  }).then(
    (frame) => {
      const { exit, error } = frame.header;
      if (exit !== undefined) {
        options.onExit?.(exit);
        return exit.code;
      }
      if (error !== undefined) return 127;
      session.fail("it reported the end of a process without an exit code");
      return 137;
    },
    () => 137,
  ).then(async (code) => {
    for (const controller of Object.values(controllers)) quietly(() => controller.close());
    await lease.release();
    return { code, success: code === 0, signal: null };
  });
  return {
    pid: 0,
    stdin: passed?.stdin ?? new WritableStream<Uint8Array>({
      async write(chunk) {
        const frame = await ask({ op: "stdin", target: id }, chunk);
        if (frame.header.ok === undefined) throw new Error("the process's stdin is closed");
      },
      async close() {
        await ask({ op: "stdin", target: id, close: true }).catch(() => {});
      },
    }),
    stdout: passed?.stdout ?? stdout,
    stderr: passed?.stderr ?? stderr,
    status,
    kill(signal: Deno.Signal = "SIGTERM") {
      session.notify({ op: "signal", target: id, signal });
    },
    output: () => Promise.reject(new TypeError("output() is not available")),
    ref() {},
    unref() {},
    [Symbol.asyncDispose]: async () => {},
  } as unknown as Deno.ChildProcess;
}

import { SandboxMissing } from "./bwrap_missing.ts";
import { bwrapCommand, type BwrapOptions } from "./bwrap_command.ts";
import { bwrapSizeSupported } from "./bwrap_size_support.ts";
import { supervisorScript } from "./supervisor/supervisor_script.ts";
import { printfEscaped, ptraceFilter } from "./ptrace_filter.ts";
import { quietly } from "./quietly.ts";

/** What a session shows and how it starts. */
export interface SessionSetup {
  /** The mounts (workspace, read-only roots, protected paths and the directories pinned). */
  readonly mounts: Pick<
    BwrapOptions,
    "workspace" | "readOnlyRoots" | "protectedPaths" | "pinnedDirs" | "writableRoots" | "home"
  >;
  /** The environment of the `bwrap` process: only PATH (to find programs). */
  readonly path: string;
  /**
   * How long the supervisor may take to start, in milliseconds; more when bubblewrap has many
   * binds to make (see `SandboxSession.start`).
   */
  readonly startTimeoutMs: number;
  /**
   * The host path of the network proxy's socket, when the sandbox may reach the network: that one
   * file is bound, never its folder (which may hold other servers' sockets).
   */
  readonly proxySocket?: string;
  /** The size of each tmpfs commands can write (`/tmp`, home, `/dev/shm`), in bytes. */
  readonly tmpfsBytes?: number;
  /**
   * The host process whose stdin, stdout and stderr pipes a background process of the session
   * takes over as its own (see `spawnInSession`'s `stdio`): the launch opens them again through
   * its `/proc/<pid>/fd` and hands them to bubblewrap, so that the process's bytes pass no
   * supervisor. Default: none.
   */
  readonly stdioPid?: number;
  /** Wraps the `bwrap` program and arguments (resource limits); default: unchanged. */
  readonly wrap?: (program: string, args: string[]) => { program: string; args: string[] };
}

// Where the host's deno binary appears inside the sandbox.
const DENO_INSIDE = "/.toolroute/deno";
// Where the proxy's socket appears, and the port the supervisor bridges to it.
const PROXY_INSIDE = "/.toolroute/net";
/** The proxy's socket inside the sandbox (the supervisor's `net` bridge leads to it). */
export const PROXY_SOCKET_INSIDE = `${PROXY_INSIDE}/proxy.sock`;
/** The loopback port inside the sandbox that leads to the proxy. */
export const PROXY_PORT = 3128;
/** The proxy's address inside a sandbox with a network allowlist. */
export const PROXY_URL = `http://127.0.0.1:${PROXY_PORT}`;
/** With a network allowlist, every usual proxy variable leads to the host's proxy. */
export const PROXY_ENV: Readonly<Record<string, string>> = Object.freeze({
  http_proxy: PROXY_URL,
  https_proxy: PROXY_URL,
  HTTP_PROXY: PROXY_URL,
  HTTPS_PROXY: PROXY_URL,
  ALL_PROXY: PROXY_URL,
  npm_config_proxy: PROXY_URL,
  npm_config_https_proxy: PROXY_URL,
});
// The supervisor's home: a tmpfs of its own, not in /tmp.
const HOME_INSIDE = "/.toolroute/home";
let script: string | undefined;

/**
 * Spawns a session's bubblewrap (the mounts, the host's `deno` bound read-only, the supervisor's
 * script), with its stdin, stdout and stderr piped. Throws a `ToolError` when bubblewrap is
 * missing.
 *
 * Requires `allow-run` permission for `bwrap`.
 *
 * @tags allow-run
 * @param setup The session's setup.
 * @returns The spawned process.
 */
export function launchSession(setup: SessionSetup): Deno.ChildProcess {
  script ??= supervisorScript();
  const args = bwrapCommand({
    ...setup.mounts,
    extras: [
      { source: Deno.execPath(), dest: DENO_INSIDE },
      ...(setup.proxySocket === undefined
        ? []
        : [{ source: setup.proxySocket, dest: PROXY_SOCKET_INSIDE }]),
    ],
    scratch: HOME_INSIDE,
    // An older bubblewrap has no --size: the tmpfs are then bounded by the memory cgroup only.
    ...(setup.tmpfsBytes !== undefined && bwrapSizeSupported(setup.path)
      ? { tmpfsBytes: setup.tmpfsBytes }
      : {}),
    cwd: setup.mounts.workspace?.dest ?? "/",
    command: [
      DENO_INSIDE,
      "run",
      "--quiet",
      "--no-prompt",
      "--no-config",
      "--no-lock",
      // The supervisor imports nothing and starts with an empty cache each time: making the
      // cache's files (the code cache, the npm resolver's) would only slow its start.
      "--no-code-cache",
      "--no-npm",
      "--no-remote",
      // Deno needs all permissions to read /proc (to end a command's processes) and
      // --allow-run lets a child do anything anyway: the namespace is the boundary.
      "--allow-all",
      script,
      SUPERVISOR_FDS,
      ...(setup.stdioPid === undefined ? [] : [SUPERVISOR_STDIO]),
    ],
  });
  const spawned = withPtraceFilter(setup.wrap, args, setup.stdioPid);
  try {
    return new Deno.Command(spawned.program, {
      args: spawned.args,
      // Commands can read the supervisor's environment: only names they have anyway.
      // Deno looks for a newer version of itself at each start in a fresh home, unless told.
      // Its DENO_DIR cannot be made (under procfs): Deno then keeps its analysis caches in
      // memory instead of creating their database files at each start.
      env: {
        PATH: setup.path,
        HOME: HOME_INSIDE,
        DENO_DIR: "/proc/toolroute-no-cache",
        DENO_NO_UPDATE_CHECK: "1",
      },
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    throw new SandboxMissing({ cause: error });
  }
}

// Moves the host's pipes to fds 4 (requests) and 5 (answers), with /dev/null as stdin and
// stdout: bubblewrap's init (pid 1 of the sandbox) closes every descriptor above 2 but keeps 0,
// 1 and 2 for its whole life, and any process of the sandbox could open those through
// /proc/1/fd (a request written into the supervisor's input, an answer forged); the supervisor
// alone holds 4 and 5 (`SUPERVISOR_FDS`). With a stand-in's pid, opens its stdin, stdout and
// stderr pipes again on 6, 7 and 8 (the pipes of a long-lived command, which the supervisor
// hands to it: `SUPERVISOR_STDIO`). Closes every other descriptor: one the host inherited
// without close-on-exec (from the shell or agent that started it) would otherwise reach every
// process of the sandbox. Then opens the filter's bytes, if any, on fd 3 (a pipe: no file to
// write) and runs the rest in its place.
const STAGE = `command -v "$3" >/dev/null ||
  { echo "bwrap: bubblewrap (bwrap) is not installed" >&2; exit 1; }
exec 4<&0 5>&1 </dev/null >/dev/null
[ -z "$2" ] || exec 6<"/proc/$2/fd/0" 7>"/proc/$2/fd/1" 8>"/proc/$2/fd/2" || exit 1
keep='^[0-24-5]$'; [ -z "$2" ] || keep='^[0-24-8]$'; fds=(/proc/$BASHPID/fd/*)
for f in "\${fds[@]##*/}"; do
  [[ $f =~ $keep || ! -e /proc/$BASHPID/fd/$f ]] || exec {f}>&-
done
[ -z "$1" ] || exec 3< <(printf %b "$1"); shift 2; exec "$@"`;
/** The supervisor's argument naming the descriptors of the host's pipes (see `STAGE`). */
export const SUPERVISOR_FDS = "--toolroute-fds=4,5";
/** The supervisor's argument naming the descriptors of a command's own pipes (see `STAGE`). */
export const SUPERVISOR_STDIO = "--toolroute-stdio=6,7,8";
let filter: string | undefined | null;

/**
 * The command that starts bubblewrap (wrapped in the resource limits when `wrap` is given) with
 * the ptrace filter (`ptrace_filter.ts`) as its seccomp program, read from fd 3 (on an
 * architecture without one, no filter), behind the stage that moves the host's pipes (`STAGE`).
 */
function withPtraceFilter(
  wrap: SessionSetup["wrap"],
  args: string[],
  stdioPid: number | undefined,
): { program: string; args: string[] } {
  if (filter === undefined) {
    const bytes = ptraceFilter(Deno.build.arch);
    filter = bytes === undefined ? null : printfEscaped(bytes);
  }
  const bwrapArgs = filter === null ? args : ["--seccomp", "3", ...args];
  const inner = wrap?.("bwrap", bwrapArgs) ?? { program: "bwrap", args: bwrapArgs };
  return {
    program: "bash",
    args: [
      "-c",
      STAGE,
      "toolroute-seccomp",
      filter ?? "",
      stdioPid === undefined ? "" : String(stdioPid),
      inner.program,
      ...inner.args,
    ],
  };
}

/** When a wrapper that has not ended is killed: after its waits (init 5 s, cgroups 1 s each). */
const LAST_RESORT_MS = 10_000;

/**
 * Stops a session's bubblewrap and so everything in its PID namespace. Wrapped in the resource
 * limits, it gets TERM (the wrapper then kills bubblewrap and removes the session's cgroups),
 * repeated until it ends (a shell's \`wait\` misses a signal that arrives just before it blocks),
 * and KILL only after the wrapper's own bounded waits (the namespace's init, then each cgroup)
 * could have run out; otherwise KILL at once.
 *
 * @param child The spawned process.
 * @param wrapped Whether the resource-limit wrapper runs it.
 */
export function stopSandbox(child: Deno.ChildProcess, wrapped: boolean): void {
  const kill = (signal: Deno.Signal) => quietly(() => child.kill(signal));
  kill(wrapped ? "SIGTERM" : "SIGKILL");
  if (wrapped) {
    const again = setInterval(() => kill("SIGTERM"), 100);
    // Not sooner: a wrapper killed while it waits for the sandbox's init ends the session while
    // the namespace's processes are still being killed (on a loaded machine that takes seconds),
    // and `close()` would return with them still there.
    const last = setTimeout(() => kill("SIGKILL"), LAST_RESORT_MS);
    void child.status.then(() => {
      clearInterval(again);
      clearTimeout(last);
    });
  }
}

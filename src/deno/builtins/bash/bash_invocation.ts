import { KILL_MARKED_LOOP, type ReapTarget, RUN_MARKER } from "./process_reaper.ts";

/** How one bash command is spawned. */
export interface BashInvocation {
  /** The command text as the model gave it. */
  readonly command: string;
  /**
   * The program: `"bash"` (a sandboxed command runs in the session: `spawn`, and its command,
   * directory and environment are what the session runs).
   */
  readonly program: string;
  readonly args: string[];
  /** The real working directory on the host. */
  readonly cwd: string;
  /** The whole environment of the command (the host's is cleared). */
  readonly env: Record<string, string>;
  /** Whether bubblewrap confines the command. */
  readonly sandboxed: boolean;
  /** Whether to spawn it as the leader of a new session and process group. */
  readonly detached: boolean;
  /** How to end it, given the spawned child. */
  readonly target: (child: Deno.ChildProcess) => ReapTarget;
  /** Spawns it another way than `Deno.Command` (in a sandbox session). */
  readonly spawn?: () => Deno.ChildProcess;
}

/** What {@linkcode bashInvocation} needs. */
export interface BashInvocationOptions {
  /** The command text, run by `bash -c`. */
  readonly command: string;
  /** The working directory: the declared workspace followed by the symlink-free rest. */
  readonly cwd: string;
  /** The environment passed to the command. */
  readonly env: Record<string, string>;
  /** `true` for a background process: adds the host-exit watchdog. */
  readonly background: boolean;
}

// After a kill, pipes still held by a process that left the group (its own `setsid`) are
// abandoned after this long instead of waiting for them.
export const PIPE_GRACE_MS = 250;

/** Spawns an unsandboxed invocation on the host, with its environment only and output piped. */
export function spawnOnHost(
  invocation: BashInvocation,
  stdin: "null" | "piped",
): Deno.ChildProcess {
  return new Deno.Command(invocation.program, {
    args: invocation.args,
    cwd: invocation.cwd,
    env: invocation.env,
    clearEnv: true,
    detached: invocation.detached,
    stdin,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

// The shell leads its own process group (spawned `detached`); it checks that before signalling
// the group, so that a spawn that was not detached can never signal the host's group.
const OWN_GROUP = `{ read -r _ _ _ _ g _ </proc/$$/stat; [ "$g" = "$$" ]; } 2>/dev/null`;

// On exit of a background process's shell (normal or `exit N`), it ignores TERM and sends TERM
// to its own process group: children it left behind end with it. The exit status is kept.
// Only the shell itself reaps: a subshell (the watchdog) may still carry the trap when the shell
// is gone, and must neither signal nor print into the log.
const GROUP_REAP =
  `trap '[ "$BASHPID" = "$$" ] && trap "" TERM && ${OWN_GROUP} && kill -TERM -$$ 2>/dev/null' EXIT; `;

// On exit of an exec command's shell, when it started background jobs (`$!` is set), every
// process carrying its run marker gets TERM. A job that is exec'ing its program at that instant
// has no readable environment for a moment, so after 50 ms a second sweep catches it. Without
// jobs this costs nothing.
const QUOTED_LOOP = KILL_MARKED_LOOP.replaceAll("'", `'"'"'`);
const MARKED_REAP = `trap '[ -n "$!" ] && { s=TERM; ids=$${RUN_MARKER}; ${QUOTED_LOOP}; ` +
  `command sleep 0.05 2>/dev/null; ${QUOTED_LOOP}; }' EXIT; `;

// A background process also watches the host: once the host is gone (even when it was killed
// by a signal and could not clean up) the watchdog kills the whole group. The host is its pid
// and its start time (field 22 of its stat): after the host's end the kernel may give the pid
// to another process, which `kill -0` would take for the host. `read -t 1` on a pipe that never
// gets data sleeps without starting a process each second. In the subshell `$$` is still the
// leader's pid.
function watchdog(hostPid: number): string {
  return `( exec 3<> <(:); started() { local s; read -r s </proc/${hostPid}/stat && ` +
    `s=\${s##*) } && set -- $s && REPLY=\${20}; }; started; t=$REPLY; ` +
    `while started && [ "$REPLY" = "$t" ]; do read -t 1 -u 3; done; ` +
    `${OWN_GROUP} && kill -KILL -$$ ) </dev/null >/dev/null 2>&1 & `;
}

/**
 * Builds how an unsandboxed command (`sandbox: "none"`) is spawned: `bash -c` on the host, with
 * the group-reaping prefix, and for background processes the host watchdog. (A sandboxed command
 * runs in the context's sandbox session: see `bash_command.ts`.)
 *
 * @param options The command, directory and environment.
 * @returns The program, arguments, working directory and environment.
 */
export function bashInvocation(options: BashInvocationOptions): BashInvocation {
  const { command, cwd, env } = options;
  if (options.background) {
    return {
      command,
      program: "bash",
      args: ["-c", GROUP_REAP + watchdog(Deno.pid) + command],
      cwd,
      env,
      sandboxed: false,
      detached: true,
      target: (child) => ({ kind: "group", pgid: child.pid }),
    };
  }
  const marker = crypto.randomUUID();
  return {
    command,
    program: "bash",
    args: ["-c", MARKED_REAP + command],
    cwd,
    env: { ...env, [RUN_MARKER]: marker },
    sandboxed: false,
    detached: false,
    target: (child) => ({ kind: "marked", child, marker }),
  };
}

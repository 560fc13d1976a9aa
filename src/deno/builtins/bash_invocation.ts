import { bwrapCommand } from "./bwrap_command.ts";

/** How one bash command is spawned. */
export interface BashInvocation {
  /** The program: `"bash"`, or `"bwrap"` when sandboxed. */
  readonly program: string;
  /** Its arguments. */
  readonly args: string[];
  /** The real working directory on the host. */
  readonly cwd: string;
  /** The whole environment of the command (the host's is cleared). */
  readonly env: Record<string, string>;
  /** Whether bubblewrap confines the command. */
  readonly sandboxed: boolean;
}

/** What {@linkcode bashInvocation} needs. */
export interface BashInvocationOptions {
  /** `"bwrap"` or `"none"`. */
  readonly sandbox: "bwrap" | "none";
  /** The command text, run by `bash -c`. */
  readonly command: string;
  /** The real working directory. */
  readonly cwd: string;
  /** The real workspace and read-only roots, for the sandbox's mounts. */
  readonly roots: { readonly workspace: string; readonly readOnlyRoots: readonly string[] };
  /** The environment passed to the command. */
  readonly env: Record<string, string>;
  /** `true` for a background process: adds the host-exit watchdog when not sandboxed. */
  readonly background: boolean;
  /** The bubblewrap program; default `"bwrap"` (tests point it elsewhere). */
  readonly bwrapProgram?: string;
}

// On exit (normal or `exit N`), the shell ignores TERM and sends it to its own process group:
// background children it left behind end with it. The exit status is kept.
const REAP = `trap 'trap "" TERM; kill -TERM 0 2>/dev/null' EXIT; `;

// A background process also watches the host: once the host's pid is gone (even when it was
// killed by a signal and could not clean up) the watchdog kills the whole group. `read -t 1`
// on a pipe that never gets data sleeps without starting a process each second.
function watchdog(hostPid: number): string {
  return `( exec 3<> <(:); while kill -0 ${hostPid} 2>/dev/null; do read -t 1 -u 3; done; ` +
    `kill -KILL 0 ) </dev/null >/dev/null 2>&1 & `;
}

/**
 * Builds how a command is spawned: `bash -c` on the host (with the group-reaping prefix, and for
 * background processes the host watchdog), or `bash -c` inside bubblewrap.
 *
 * Inside bubblewrap no prefix is needed: when the command's shell ends, its PID namespace ends
 * and the kernel kills every process left in it; `--die-with-parent` ends it with the host.
 *
 * @param options The sandbox, command, directories and environment.
 * @returns The program, arguments, working directory and environment.
 */
export function bashInvocation(options: BashInvocationOptions): BashInvocation {
  const { sandbox, command, cwd, env } = options;
  if (sandbox === "bwrap") {
    const args = bwrapCommand({
      workspace: options.roots.workspace,
      readOnlyRoots: options.roots.readOnlyRoots,
      cwd,
      command: ["bash", "-c", command],
    });
    return { program: options.bwrapProgram ?? "bwrap", args, cwd, env, sandboxed: true };
  }
  const prefix = options.background ? REAP + watchdog(Deno.pid) : REAP;
  return { program: "bash", args: ["-c", prefix + command], cwd, env, sandboxed: false };
}

/**
 * Ending what the bash tool started: every process of a command, also its background children.
 *
 * Three kinds of target, chosen by how the command was spawned (see `bash_invocation.ts`):
 * - `group`: a background process spawned `detached` leads its own session and process group;
 *   one signal to the group reaches every child that did not start its own session.
 * - `marked`: an `exec` command is spawned without a new session (a detached spawn forks the
 *   whole Deno process and roughly doubles the cost of a short command), with a marker variable
 *   `TOOLROUTE_RUN_ID` that every descendant inherits; ending it kills the shell and then every
 *   process whose environment carries the marker. A process that clears its environment escapes.
 * - `sandbox`: a bubblewrap process; killing it ends its PID namespace, and the kernel kills
 *   every process in it (`--die-with-parent`).
 *
 * Signalling a group needs `Deno.kill` with the unscoped `--allow-run`; under the narrow
 * `--allow-run=bash` a short `bash -c 'kill …'` does it, and the marker scan always runs in
 * bash (it reads `/proc/<pid>/environ`, Linux only). When the host process exits normally
 * (`unload`, also fired by `Deno.exit`) every target still alive is killed synchronously.
 */
import { quietly } from "../../sandbox/quietly.ts";
import { granted } from "../permissions/program_installed.ts";

/** Something the reaper can end. */
export type ReapTarget =
  | { readonly kind: "group"; readonly pgid: number }
  | { readonly kind: "marked"; readonly child: Deno.ChildProcess; readonly marker: string }
  | { readonly kind: "sandbox"; readonly child: Deno.ChildProcess };

/** The environment variable that marks every process of one `exec` command. */
export const RUN_MARKER = "TOOLROUTE_RUN_ID";

/**
 * Bash code that sends signal `$s` to every process but the current shell whose environment
 * has {@linkcode RUN_MARKER} set to one of the words of `$ids`, in rounds until a round finds
 * none (at most 5). Builtins only (`mapfile -d ''` needs bash 4.4): no process is started per
 * check.
 */
export const KILL_MARKED_LOOP = `for r in 1 2 3 4 5; do f=0; ` +
  `for d in /proc/[0-9]*; do p=\${d#/proc/}; [ "$p" = "$$" ] && continue; ` +
  `mapfile -d '' -t e 2>/dev/null < "$d/environ" || continue; j=" \${e[*]} "; ` +
  `for i in $ids; do case "$j" in *" ${RUN_MARKER}=$i "*) kill -$s "$p" 2>/dev/null && f=1; ` +
  `break;; esac; done; done; [ $f = 0 ] && break; done`;

const KILL_MARKED = `s=$1; shift; ids="$*"; ${KILL_MARKED_LOOP}; exit 0`;

const live = new Set<ReapTarget>();
let listening = false;

/**
 * Remembers a target so that it is killed when the host process exits.
 *
 * @returns A function that forgets it again.
 */
export function trackForExit(target: ReapTarget): () => void {
  if (!listening && typeof globalThis.addEventListener === "function") {
    globalThis.addEventListener("unload", reapAllSync);
    listening = true;
  }
  live.add(target);
  return () => {
    live.delete(target);
  };
}

/**
 * Sends a signal to every process of a target; one that is already gone is not an error.
 *
 * @param signal The signal; default `SIGKILL`.
 */
export async function reap(target: ReapTarget, signal: Deno.Signal = "SIGKILL"): Promise<void> {
  if (target.kind === "group") {
    if (granted({ name: "run" })) return quietly(() => Deno.kill(-target.pgid, signal));
    await runBash(killGroupsArgs([target.pgid], signal));
    return;
  }
  quietly(() => target.child.kill(signal));
  if (target.kind === "marked") await runBash(killMarkedArgs([target.marker], signal));
}

function reapAllSync(): void {
  const targets = [...live];
  live.clear();
  const groups: number[] = [];
  const markers: string[] = [];
  for (const target of targets) {
    if (target.kind === "group") groups.push(target.pgid);
    else {
      quietly(() => target.child.kill("SIGKILL"));
      if (target.kind === "marked") markers.push(target.marker);
    }
  }
  try {
    if (groups.length > 0) new Deno.Command("bash", killGroupsArgs(groups, "SIGKILL")).outputSync();
    if (markers.length > 0) {
      new Deno.Command("bash", killMarkedArgs(markers, "SIGKILL")).outputSync();
    }
  } catch {
    // Nothing more can be done while the host exits.
  }
}

async function runBash(options: Deno.CommandOptions): Promise<void> {
  await new Deno.Command("bash", options).output().catch(() => undefined);
}

function killGroupsArgs(groups: readonly number[], signal: Deno.Signal): Deno.CommandOptions {
  const targets = groups.map((pgid) => `-${pgid}`).join(" ");
  return quiet(["-c", `kill -${signalName(signal)} -- ${targets} 2>/dev/null; exit 0`]);
}

function killMarkedArgs(markers: readonly string[], signal: Deno.Signal): Deno.CommandOptions {
  return quiet(["-c", KILL_MARKED, "bash", signalName(signal), ...markers]);
}

function quiet(args: string[]): Deno.CommandOptions {
  return { args, clearEnv: true, stdin: "null", stdout: "null", stderr: "null" };
}

function signalName(signal: Deno.Signal): string {
  return signal.replace(/^SIG/, "");
}

/**
 * Process groups started by the bash tool, and how they end.
 *
 * Every command runs as the leader of its own session and process group (`detached: true`), so
 * one signal to the group reaches every child it forked, including background children that
 * hold its pipes open. Killing a group needs `Deno.kill` with the unscoped `--allow-run`; under
 * the narrow `--allow-run=bash` a short `bash -c 'kill …'` does it instead.
 *
 * When the host process exits normally (`unload`, which also fires on `Deno.exit`), every group
 * still alive is killed. A host killed by a signal or crashing does not run `unload`: see the
 * watchdog in `bash_invocation.ts` and bubblewrap's `--die-with-parent`.
 */

const live = new Set<number>();
let listening = false;

/**
 * Remembers a group so that it is killed when the host process exits.
 *
 * @param pgid The group's id (the pid of its leader).
 * @returns A function that forgets it again.
 */
export function trackGroup(pgid: number): () => void {
  if (!listening && typeof globalThis.addEventListener === "function") {
    globalThis.addEventListener("unload", killAllSync);
    listening = true;
  }
  live.add(pgid);
  return () => {
    live.delete(pgid);
  };
}

/**
 * Sends a signal to every process of a group; a group that is already gone is not an error.
 *
 * @param pgid The group's id.
 * @param signal The signal; default `SIGKILL`.
 */
export async function killGroup(pgid: number, signal: Deno.Signal = "SIGKILL"): Promise<void> {
  if (canKillDirectly()) {
    try {
      Deno.kill(-pgid, signal);
    } catch {
      // Already gone.
    }
    return;
  }
  await new Deno.Command("bash", killCommand([pgid], signal)).output().catch(() => undefined);
}

function killAllSync(): void {
  if (live.size === 0) return;
  const groups = [...live];
  live.clear();
  if (canKillDirectly()) {
    for (const pgid of groups) {
      try {
        Deno.kill(-pgid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
    return;
  }
  try {
    new Deno.Command("bash", killCommand(groups, "SIGKILL")).outputSync();
  } catch {
    // Nothing more can be done while the host exits.
  }
}

function killCommand(groups: readonly number[], signal: Deno.Signal): Deno.CommandOptions {
  const targets = groups.map((pgid) => `-${pgid}`).join(" ");
  return {
    args: ["-c", `kill -${signal.replace(/^SIG/, "")} -- ${targets} 2>/dev/null; exit 0`],
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  };
}

function canKillDirectly(): boolean {
  try {
    return Deno.permissions.querySync({ name: "run" }).state === "granted";
  } catch {
    return false;
  }
}

/**
 * A lying supervisor for tests of the host's checks: since s24a a command can no longer write
 * into its supervisor's pipes (the supervisor is not dumpable, bubblewrap's init does not hold
 * them), so the test itself, on the host (the sandbox's user namespace is the host user's), writes
 * the forged bytes into the supervisor's stdout while a command of the session runs.
 *
 * @module
 */

/**
 * The host pid of the supervisor of the process whose command line holds `marker`: its nearest
 * ancestor whose command line starts with the deno bound inside the sandbox.
 *
 * @param marker Text in the command line of a process a command of the session started.
 * @param ms How long to look for it.
 * @returns The supervisor's pid on the host.
 */
export async function supervisorOf(marker: string, ms = 5000): Promise<number> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    for (const entry of Deno.readDirSync("/proc")) {
      if (!/^\d+$/.test(entry.name)) continue;
      try {
        if (!commandLine(Number(entry.name)).includes(marker)) continue;
        for (let pid = Number(entry.name); pid > 1; pid = parentOf(pid)) {
          if (commandLine(pid).startsWith("/.toolroute/deno ")) return pid;
        }
      } catch {
        // Gone meanwhile.
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no supervisor found above a process with "${marker}"`);
}

/**
 * Writes `bytes` into the stdout (the pipe to the host) of the supervisor `pid`.
 *
 * @param pid The supervisor's pid on the host.
 * @param bytes The forged bytes.
 * @returns How many bytes were written.
 */
export function forgeAnswers(pid: number, bytes: Uint8Array): number {
  using pipe = Deno.openSync(`/proc/${pid}/fd/1`, { write: true });
  let at = 0;
  while (at < bytes.length) at += pipe.writeSync(bytes.subarray(at));
  return at;
}

function commandLine(pid: number): string {
  return Deno.readTextFileSync(`/proc/${pid}/cmdline`).replaceAll("\0", " ");
}

function parentOf(pid: number): number {
  return Number(/^PPid:\s+(\d+)$/m.exec(Deno.readTextFileSync(`/proc/${pid}/status`))?.[1] ?? 0);
}

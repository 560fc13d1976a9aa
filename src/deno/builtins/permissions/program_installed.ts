/**
 * Whether a program that the process may not run is installed at all, so that a missing program
 * and a missing grant get different messages. Deno reports both as the same ungranted `run`
 * permission: `--allow-run=bwrap` grants nothing when no `bwrap` is on `PATH`, so "add
 * `--allow-run=bwrap`" would send a user without bubblewrap round in circles.
 *
 * Deno looks a program up on `PATH` before it checks the permission: spawning an ungranted
 * program throws `NotFound` when it is not installed and `NotCapable` when it is, and runs
 * nothing either way. The probe is made only when Deno cannot prompt (stdin or stderr is not a
 * terminal, or `--no-prompt`, which makes the spawn fail the same way).
 *
 * @param command The program, looked up on the process's `PATH`.
 * @returns `false` when it is not installed, `true` when it is, `undefined` when that cannot be
 * told without running it or prompting (it is granted, or a prompt could appear).
 */
export function programInstalled(command: string): boolean | undefined {
  if (granted({ name: "run", command })) return undefined;
  if (Deno.stdin.isTerminal() && Deno.stderr.isTerminal()) return undefined;
  try {
    const child = new Deno.Command(command, { stdin: "null", stdout: "null", stderr: "null" })
      .spawn();
    // Not reached while the program is ungranted; should it run, it is stopped at once.
    child.kill();
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    if (error instanceof Deno.errors.NotCapable) return true;
    return undefined;
  }
}

/** Whether Deno grants a permission at this moment (`querySync` never prompts). */
export function granted(descriptor: Deno.PermissionDescriptor): boolean {
  return Deno.permissions.querySync(descriptor).state === "granted";
}

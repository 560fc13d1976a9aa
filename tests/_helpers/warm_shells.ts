/** A warm shell of a sandbox session as the host sees it (bash waiting in `read` for a command). */
export interface WarmShell {
  /** Its process id on the host. */
  pid: number;
  /** Its command line, arguments joined by spaces. */
  cmdline: string;
  /** Its working directory (the sandbox binds the workspace at its own path). */
  cwd: string;
  /** Its environment, `NAME=value` entries. */
  environ: string[];
  /** Its state letter from `/proc/PID/status` (`S` sleeping, `R` running, `T` stopped...). */
  state: string;
}

// The pattern names the shell's variable without containing it, so neither this script nor its
// grep matches itself. A child lists /proc: under test:deno's permissions (not --allow-all) Deno
// refuses to read /proc itself.
const SCRIPT = `for f in $(grep -la 'BASH_EXECUTION[_]STRING' /proc/[0-9]*/cmdline 2>/dev/null); do
  p=\${f%/cmdline}
  c=$(tr '\\000' ' ' < $p/cmdline 2>/dev/null) || continue
  d=$(readlink $p/cwd 2>/dev/null) || continue
  e=$(tr '\\000' '\\001' < $p/environ 2>/dev/null)
  s=$(sed -n 's/^State:[[:space:]]*\\(.\\).*/\\1/p' $p/status 2>/dev/null)
  printf '%s\\002%s\\002%s\\002%s\\002%s\\003' "\${p#/proc/}" "$c" "$d" "$e" "$s"
done`;

/**
 * The warm shells running on the host now, of every session.
 *
 * @returns The shells, read through a child's view of `/proc`.
 */
export async function warmShells(): Promise<WarmShell[]> {
  const { stdout } = await new Deno.Command("sh", { args: ["-c", SCRIPT], stderr: "null" })
    .output();
  return new TextDecoder().decode(stdout).split("\x03").filter((record) => record !== "").map(
    (record) => {
      const [pid, cmdline, cwd, environ, state] = record.split("\x02");
      return {
        pid: Number(pid),
        cmdline: cmdline.trimEnd(),
        cwd,
        environ: environ.split("\x01").filter((entry) => entry !== ""),
        state,
      };
    },
  );
}

/**
 * A lying supervisor for tests of the host's checks: since s24a a command can no longer write
 * into its supervisor's pipes (the supervisor is not dumpable, bubblewrap's init does not hold
 * them), so the test itself, on the host (the sandbox's user namespace is the host user's), writes
 * the forged bytes into the supervisor's stdout while a command of the session runs. Through
 * bash: Deno opens files under /proc only with every permission.
 *
 * @module
 */

// $1: the marker. Finds a process whose command line holds it, then its nearest ancestor whose
// command line starts with the deno bound inside the sandbox, and copies stdin into its stdout.
const FORGE = `
for try in $(seq 250); do
  for p in /proc/[0-9]*; do
    [ "\${p#/proc/}" = $$ ] && continue
    tr '\\0' ' ' < $p/cmdline 2>/dev/null | grep -qF -- "$1" || continue
    pid=\${p#/proc/}
    while [ "$pid" -gt 1 ]; do
      if tr '\\0' ' ' < /proc/$pid/cmdline 2>/dev/null | grep -q '^/.toolroute/deno '; then
        cat > /proc/$pid/fd/1 && echo written && exit 0
        exit 1
      fi
      pid=$(awk '/^PPid:/ { print $2 }' /proc/$pid/status 2>/dev/null); pid=\${pid:-0}
    done
  done
  sleep 0.02
done
exit 2`;

/**
 * Writes `bytes` into the stdout (the pipe to the host) of the supervisor above the process whose
 * command line holds `marker` (a command of its session started it).
 *
 * Requires `allow-run` permission for `bash`.
 *
 * @param marker Text in the command line of a process a command of the session started.
 * @param bytes The forged bytes.
 * @returns Whether all of them were written.
 */
export async function forgeAnswers(marker: string, bytes: Uint8Array): Promise<boolean> {
  const child = new Deno.Command("bash", {
    args: ["-c", FORGE, "toolroute-forge", marker],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(bytes);
  await writer.close();
  const { code, stdout } = await child.output();
  return code === 0 && new TextDecoder().decode(stdout) === "written\n";
}

/**
 * Whether a process is running (not exited, not a zombie), asked of `ps` because Deno refuses
 * reads of `/proc/<pid>` without `--allow-all`. Needs `allow-run` for `ps`.
 *
 * @param pid The process id.
 * @returns `true` while the process runs.
 */
export async function processAlive(pid: number): Promise<boolean> {
  const { stdout } = await new Deno.Command("ps", {
    args: ["-o", "stat=", "-p", String(pid)],
    stdout: "piped",
    stderr: "null",
  }).output();
  const state = new TextDecoder().decode(stdout).trim();
  return state !== "" && !state.startsWith("Z");
}

/**
 * A bench server script of this folder in its own process (`bench/deno.json` for its imports):
 * its first line of output (a URL, or JSON of several), and how to stop it.
 *
 * @module
 */

/** Starts `script` (a file of `bench/`) with `permission` and `args`; waits for its first line. */
export async function startBenchServer(
  script: string,
  options: { permission?: string; args?: readonly string[] } = {},
): Promise<{ line: string; close: () => Promise<void> }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--config",
      new URL("./deno.json", import.meta.url).pathname,
      "--no-prompt",
      options.permission ?? "--allow-net=127.0.0.1",
      new URL(script, import.meta.url).pathname,
      ...(options.args ?? []),
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let line = "";
  while (!line.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the bench server ${script} ended before it said where it listens`);
    line += value;
  }
  reader.releaseLock();
  return {
    line: line.trim(),
    close: async () => {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}

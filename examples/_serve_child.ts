/**
 * Starts `toolroute serve --http 127.0.0.1:0` as a child process with least-privilege flags and
 * waits for its "serving … at URL" line and the bearer token it prints: shared by the serve demo and the start-up bench.
 *
 * @module
 */
import { runCli } from "../src/deno/cli/mod.ts";

const CLI = decodeURIComponent(new URL("../src/deno/cli/mod.ts", import.meta.url).pathname);

/** A running `toolroute serve --http`. */
export interface ServeChild {
  /** The MCP endpoint. */
  url: string;
  /** The bearer token it generated and printed once to stderr. */
  token: string;
  /** The flags the child runs with. */
  flags: string[];
  /** `performance.now()` just before the child was spawned. */
  spawnedAt: number;
  /** Stops the child (SIGTERM) and returns its exit code. */
  stop(): Promise<number>;
}

/**
 * Prints the exact flags for `args` with `toolroute flags`, then serves with them.
 *
 * @param args `--workspace`, `--config`, …
 * @returns The running child.
 */
export async function startServeChild(args: string[]): Promise<ServeChild> {
  const lines: string[] = [];
  const io = { out: (line: string) => lines.push(line), err: (line: string) => lines.push(line) };
  if (await runCli(["flags", ...args, "--http", "127.0.0.1:0"], io) !== 0) {
    throw new Error(lines.join("\n"));
  }
  const flags = lines[0].split(" ");
  const spawnedAt = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...flags, CLI, "serve", "--http", "127.0.0.1:0", ...args],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
    // No TOOLROUTE_TOKEN: serve generates a token and prints it once, ready to paste.
    env: { TOOLROUTE_TOKEN: "" },
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  let url: string | undefined;
  let token: string | undefined;
  while (url === undefined || token === undefined) {
    const { done, value } = await reader.read();
    if (done) break;
    text += value;
    url = text.match(/at (http:\/\/\S+\/mcp)/)?.[1];
    token = text.match(/Authorization: Bearer (\S+)\n/)?.[1];
  }
  const drained = (async () => {
    while (!(await reader.read()).done) { /* keep the pipe empty */ }
  })();
  if (url === undefined || token === undefined) {
    await drained;
    throw new Error(`toolroute serve exited with ${(await child.status).code}: ${text}`);
  }
  return {
    url,
    token,
    flags,
    spawnedAt,
    async stop() {
      child.kill("SIGTERM");
      const status = await child.status;
      await drained;
      return status.code;
    },
  };
}

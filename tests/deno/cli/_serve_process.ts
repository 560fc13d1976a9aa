/**
 * Test helpers: a temporary workspace with a config, and `toolroute serve` as a child process
 * run with exactly the flags `toolroute flags` prints.
 *
 * @module
 */
import { fromFileUrl } from "./_file_url.ts";
import { runCli } from "../../../src/deno/cli/mod.ts";

/** The CLI entry. */
export const CLI: string = fromFileUrl(new URL("../../../src/deno/cli/mod.ts", import.meta.url));

/** A temporary folder with a workspace and a config file. */
export interface Fixture extends AsyncDisposable {
  /** The folder. */
  dir: string;
  /** The workspace inside it. */
  workspace: string;
  /** The config path. */
  config: string;
}

/**
 * Creates a folder with `workspace/hello.txt` and `toolroute.json` holding `config`.
 *
 * @param config The config (the workspace is filled in when absent).
 * @returns The fixture; removed on dispose.
 */
export async function makeFixture(config: Record<string, unknown> = {}): Promise<Fixture> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_cli_" }));
  const workspace = `${dir}/workspace`;
  await Deno.mkdir(workspace);
  await Deno.writeTextFile(`${workspace}/hello.txt`, "hello from the workspace\n");
  const path = `${dir}/toolroute.json`;
  await Deno.writeTextFile(path, JSON.stringify({ workspace: "workspace", ...config }, null, 2));
  return {
    dir,
    workspace,
    config: path,
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}

/**
 * Runs the CLI in-process and captures its output.
 *
 * @param args The arguments.
 * @returns The exit code, stdout lines and stderr lines.
 */
export async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, { out: (line) => out.push(line), err: (line) => err.push(line) });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

/**
 * The exact flags `toolroute flags` prints for a config.
 *
 * @param args `--config`, `--http` and so on.
 * @returns The flags.
 */
export async function exactFlags(args: string[]): Promise<string[]> {
  const { code, out, err } = await cli(["flags", ...args]);
  if (code !== 0) throw new Error(`toolroute flags failed: ${err}`);
  return out.split(" ");
}

/** The `TOOLROUTE_TOKEN` a test server gets unless the test sets its own. */
export const TEST_TOKEN = "test-token-0123456789abcdef";

/** A running `toolroute serve --http`. */
export interface HttpServe extends AsyncDisposable {
  /** The MCP endpoint. */
  url: string;
  /** The bearer token of a config without users (`TOOLROUTE_TOKEN`). */
  token: string;
  /** Options for the SDK's HTTP client transport that send the token. */
  auth: { requestInit: { headers: Record<string, string> } };
  /** Everything the child wrote to stderr so far. */
  stderr(): string;
  /** Stops the child with SIGTERM and waits for it; returns its exit code. */
  stop(): Promise<number>;
}

/**
 * Starts `toolroute serve --http 127.0.0.1:0` as a child process with the given Deno flags and
 * waits for its "serving … at URL" line.
 *
 * @param denoFlags The child's permission flags.
 * @param serveArgs Arguments after `serve`.
 * @param env Extra environment variables; `TOOLROUTE_TOKEN` is {@linkcode TEST_TOKEN} unless set.
 * @param listen The `--http` address. Default: `127.0.0.1:0`.
 * @returns The running server.
 */
export async function startHttpServe(
  denoFlags: string[],
  serveArgs: string[],
  env: Record<string, string> = {},
  listen = "127.0.0.1:0",
): Promise<HttpServe> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...denoFlags, CLI, "serve", "--http", listen, ...serveArgs],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
    env: { TOOLROUTE_TOKEN: TEST_TOKEN, ...env },
  }).spawn();
  let text = "";
  const decoder = new TextDecoder();
  const reader = child.stderr.getReader();
  let url: string | undefined;
  while (url === undefined) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    url = text.match(/at (http:\/\/\S+\/mcp)/)?.[1];
  }
  const pump = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      text += decoder.decode(value, { stream: true });
    }
  })();
  if (url === undefined) {
    await pump;
    const status = await child.status;
    throw new Error(`toolroute serve exited with ${status.code}: ${text}`);
  }
  let stopped: Promise<number> | undefined;
  const stop = () =>
    stopped ??= (async () => {
      try {
        child.kill("SIGTERM");
      } catch {
        // Already exited.
      }
      const status = await child.status;
      await pump;
      return status.code;
    })();
  const token = env.TOOLROUTE_TOKEN ?? TEST_TOKEN;
  return {
    url,
    token,
    auth: { requestInit: { headers: { Authorization: `Bearer ${token}` } } },
    stderr: () => text,
    stop,
    [Symbol.asyncDispose]: async () => void await stop(),
  };
}

/**
 * {@linkcode startHttpServe} of a config with exactly the flags `toolroute flags` prints for it.
 *
 * @param config The config file.
 * @param env Extra environment variables (see {@linkcode startHttpServe}).
 * @returns The running server.
 */
export async function startExactServe(
  config: string,
  env: Record<string, string> = {},
): Promise<HttpServe> {
  const args = ["--config", config];
  return await startHttpServe(await exactFlags([...args, "--http", "127.0.0.1:0"]), args, env);
}

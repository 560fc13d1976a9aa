/**
 * Start-up time of `toolroute serve --http` (process start to the first `tools/list` answered),
 * run with least-privilege flags, against the bare start-up of a Deno process
 * (`deno run` of an empty script) in the same run.
 *
 * Run: `deno bench --config bench/deno.json --no-prompt --allow-read --allow-write --allow-run --allow-net=127.0.0.1 bench/serve_startup_bench.ts`
 *
 * @module
 */
import { Client, StreamableHTTPClientTransport } from "../src/core/mcp/mcp_sdk.ts";
import { startServeChild } from "../examples/_serve_child.ts";

const workspace = await Deno.makeTempDir({ prefix: "toolroute_bench_serve_" });
const empty = `${workspace}/empty.ts`;
await Deno.writeTextFile(empty, "");

Deno.bench({
  name: "deno run of an empty script (process start to exit)",
  group: "startup",
  baseline: true,
  n: 5,
  warmup: 1,
  async fn() {
    await new Deno.Command(Deno.execPath(), { args: ["run", empty] }).output();
  },
});

Deno.bench({
  name: "toolroute serve --http: process start to first tools/list answered",
  group: "startup",
  n: 5,
  warmup: 1,
  async fn(bench) {
    const serve = await startServeChild(["--workspace", workspace]);
    const client = new Client({ name: "bench", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(serve.url), {
        requestInit: { headers: { Authorization: `Bearer ${serve.token}` } },
      }),
    );
    await client.listTools();
    bench.end();
    console.error(`startup ${Math.round(performance.now() - serve.spawnedAt)} ms`);
    await client.close();
    await serve.stop();
  },
});

globalThis.addEventListener("unload", () => Deno.removeSync(workspace, { recursive: true }));

/**
 * What tool pinning and the audit trail add to a remote call, measured interleaved against one
 * SDK server (50 tools) in a separate process: each round runs one request (expose the server,
 * then call `echo`) through each of three routers, rotating the order, so load from other
 * processes hits all alike:
 *
 * - plain: `pinning: false`, no audit; control: the same again (the run's noise floor);
 * - pins: pinning in memory only; audit: a `FileAuditSink` only;
 * - trusted: pinning in memory (the default) and a `FileAuditSink`;
 * - shared: pinning in a `SqliteStore` (as `serve --store`) and a `FileAuditSink`.
 *
 * Every request checks all 50 pins (exposure is where pins apply) and writes one audit line.
 *
 * Run: `deno run --no-prompt -A bench/trust_cost_interleaved.ts [rounds=1000]`; prints medians
 * and the overhead relative to plain three ways: of the medians, the median of each round's own
 * ratio to plain (load that changes during the run cancels out within a round), and of the p99s.
 *
 * @module
 */

import { ToolRouter } from "../mod.ts";
import { McpGateway } from "../src/core/mcp/mod.ts";
import { FileAuditSink, SqliteStore } from "../src/deno/mod.ts";

const rounds = Number(Deno.args[0] ?? 1000);
const server = new Deno.Command(Deno.execPath(), {
  args: [
    "run",
    "--no-prompt",
    "--allow-net=127.0.0.1",
    new URL("./_gateway_bench_server.ts", import.meta.url).pathname,
    "--servers=1",
    "--tools=50",
  ],
  stdin: "piped",
  stdout: "piped",
}).spawn();
const lines = server.stdout.pipeThrough(new TextDecoderStream()).getReader();
const [url]: string[] = JSON.parse((await lines.read()).value!);
const dir = await Deno.makeTempDir();

await using plainGateway = new McpGateway({ servers: { echo: { url } }, pinning: false });
const plain = new ToolRouter({ gateway: plainGateway });
await using trustedGateway = new McpGateway({ servers: { echo: { url } } });
await using trustedAudit = await FileAuditSink.open(`${dir}/trusted.jsonl`);
const trusted = new ToolRouter({ gateway: trustedGateway, audit: trustedAudit });
using store = new SqliteStore(`${dir}/pins.db`);
await using sharedGateway = new McpGateway({ servers: { echo: { url } }, pinning: { store } });
await using sharedAudit = await FileAuditSink.open(`${dir}/shared.jsonl`);
const shared = new ToolRouter({ gateway: sharedGateway, audit: sharedAudit });

await using pinsGateway = new McpGateway({ servers: { echo: { url } } });
const pins = new ToolRouter({ gateway: pinsGateway });
await using auditGateway = new McpGateway({ servers: { echo: { url } }, pinning: false });
await using auditOnly = await FileAuditSink.open(`${dir}/audit.jsonl`);
const audit = new ToolRouter({ gateway: auditGateway, audit: auditOnly });

// A second plain router: the control, whose difference from plain is this run's noise.
await using controlGateway = new McpGateway({ servers: { echo: { url } }, pinning: false });
const control = new ToolRouter({ gateway: controlGateway });

const routers = { plain, control, pins, audit, trusted, shared };
const times: Record<string, number[]> = Object.fromEntries(
  Object.keys(routers).map((name) => [name, []]),
);
const request = async (router: ToolRouter) => {
  const toolSet = await router.expose({ mcpServers: ["echo"] });
  if (toolSet.names.length !== 50) throw new Error(`Expected 50 tools, got ${toolSet.names}`);
  const text = await toolSet.invoke("echo", '{"text":"hi"}');
  if (text !== "hi") throw new Error(`Unexpected result ${text}`);
};
for (const router of Object.values(routers)) for (let i = 0; i < 20; i++) await request(router);
const order = Object.entries(routers);
for (let round = 0; round < rounds; round++) {
  for (let i = 0; i < order.length; i++) {
    const [name, router] = order[(round + i) % order.length];
    const start = performance.now();
    await request(router);
    times[name].push(performance.now() - start);
  }
}
const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const median = (values: number[]) => sorted(values)[values.length >> 1];
const p99 = (values: number[]) => sorted(values)[Math.floor(values.length * 0.99)];
const percent = (ratio: number) => `${((ratio - 1) * 100).toFixed(1)} %`;
const base = median(times.plain);
for (const [name, values] of Object.entries(times)) {
  const m = median(values);
  const overhead = name === "plain"
    ? ""
    : ` (${percent(m / base)} over plain; per-round ratio ${
      percent(median(values.map((value, round) => value / times.plain[round])))
    }; p99 ${percent(p99(values) / p99(times.plain))})`;
  console.log(
    `${name.padEnd(8)} median ${(m * 1000).toFixed(0)} µs, p99 ${
      (p99(values) * 1000).toFixed(0)
    } µs per request${overhead}`,
  );
}
const audited = (await Deno.readTextFile(`${dir}/trusted.jsonl`)).trim().split("\n").length;
console.log(`audit lines written by "trusted": ${audited}`);
server.stdin.close();
await server.status;
await Deno.remove(dir, { recursive: true });

/**
 * Per remote call in each MCP era, side by side in one run: the raw SDK 2.x `Client`, the client
 * toolroute's gateway is built on (`CallingClient`, the SDK client without its per-call result
 * probe, on the SDK's own transport: the floor of the one SDK path), toolroute's gateway and
 * `@ai-sdk/mcp`, each calling `echo` on one dual-era SDK 2.x server (in its own
 * process), once per round in a shuffled order so load from other processes hits all alike. The
 * 2026-07-28 era is pinned for the raw client and toolroute (`protocol: "2026-07-28"`) and is what
 * `@ai-sdk/mcp` negotiates with this server; the 2025 era is `versionNegotiation: legacy`,
 * `protocol: "2025"` and `protocolVersionDiscovery: false`. Two upstreams: answers as SSE streams
 * and as plain JSON. Prints each client's median, and toolroute's time per round over the raw
 * SDK's and over `@ai-sdk/mcp`'s of the same era and round: the median of those ratios and its 95 %
 * bootstrap interval (an interval that holds 1.000 means no difference this run could tell).
 * In the 2026-07-28 era it also splits toolroute's own time over the floor into its layers: the
 * gateway's transport (`CallingClient` on `HttpClientTransport`), the gateway's routed tool
 * (`execute` of the tool `McpGateway#resolve` gives, with a signal of its own as the router makes
 * one) and the router above it (`ToolSet#invoke`), each per round over the layer below.
 * `--cold` walks 32 MiB of memory before each call, as an agent's calls come between other work,
 * so that no client's code finds the caches warm from the call before (each client's code runs a
 * different number of times a round: the SDK's is shared by three clients).
 *
 * Run: `deno run --config bench/deno.json --no-prompt -A bench/era_call_interleaved.ts [rounds=500]
 * [--cold]`
 *
 * @module
 */

// Comparison-only peer: imported here, never a dependency of the library.
// deno-lint-ignore no-import-prefix
import { createMCPClient } from "npm:@ai-sdk/mcp@2.0.99";
import { CallingClient, Client, StreamableHTTPClientTransport } from "../src/core/mcp/mcp_sdk.ts";
import { ToolRouter } from "../mod.ts";
import { startBenchServer } from "./_bench_server.ts";
import { McpGateway } from "../src/core/mcp/mod.ts";
import { HttpClientTransport } from "../src/core/mcp/gateway/http/http_client_transport.ts";

const rounds = Number(Deno.args.find((arg) => /^\d+$/.test(arg)) ?? 500);
const cold = Deno.args.includes("--cold");

async function startServer(json: boolean) {
  const server = await startBenchServer("./_era_bench_server.ts", { args: json ? ["--json"] : [] });
  return { url: server.line, close: server.close };
}

/** An SDK client of the era on the SDK's own transport, connected. */
async function sdkClient(Made: typeof Client, url: string, modern: boolean) {
  const client = new Made(
    { name: "bench", version: "1.0.0" },
    modern ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

async function clientsOf(url: string) {
  const modern = await sdkClient(Client, url, true);
  const legacy = await sdkClient(Client, url, false);
  const floorModern = await sdkClient(CallingClient, url, true);
  const floorLegacy = await sdkClient(CallingClient, url, false);
  // The layers of toolroute's 2026-07-28 call: its transport alone, then the gateway's routed
  // tool without a router.
  const transport = new CallingClient({ name: "bench", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  await transport.connect(
    new HttpClientTransport({ url: new URL(url), kind: "http", maxBodyBytes: 16 << 20 }),
  );
  const layerGateway = new McpGateway({ servers: { modern: { url, protocol: "2026-07-28" } } });
  const routed = (await layerGateway.resolve({ serverIds: ["modern"] })).global[0];
  const gateway = new McpGateway({
    servers: {
      modern: { url, protocol: "2026-07-28" },
      legacy: { url, protocol: "2025" },
    },
  });
  const router = new ToolRouter({ gateway });
  const ourModern = await router.expose({ mcpServers: ["modern"] });
  const ourLegacy = await router.expose({ mcpServers: ["legacy"] });
  const ai = await createMCPClient({ transport: { type: "http", url } });
  const aiEcho = (await ai.tools()).echo;
  const aiLegacy = await createMCPClient({
    transport: { type: "http", url },
    protocolVersionDiscovery: false,
  });
  const aiLegacyEcho = (await aiLegacy.tools()).echo;
  const options = { toolCallId: "1", messages: [], context: {} };
  const args = { text: "hi" };
  const calls: Record<string, () => Promise<unknown>> = {
    "2026 raw SDK": () => modern.callTool({ name: "echo", arguments: args }),
    "2026 toolroute": () => ourModern.invoke(ourModern.names[0], args),
    "2026 SDK floor": () => floorModern.callTool({ name: "echo", arguments: args }),
    "2026 transport": () => transport.callTool({ name: "echo", arguments: args }),
    "2026 gateway": () =>
      Promise.resolve(routed.execute(args, { signal: new AbortController().signal })),
    "2025 SDK floor": () => floorLegacy.callTool({ name: "echo", arguments: args }),
    "2025 raw SDK": () => legacy.callTool({ name: "echo", arguments: args }),
    "2025 toolroute": () => ourLegacy.invoke(ourLegacy.names[0], args),
    "2026 @ai-sdk/mcp": async () => await aiEcho.execute!(args, options),
    "2025 @ai-sdk/mcp": async () => await aiLegacyEcho.execute!(args, options),
  };
  const eras = gateway.status().map((s) => `${s.id}: ${s.protocol}`).join(", ");
  const close = async () => {
    await modern.close();
    await legacy.close();
    await floorModern.close();
    await floorLegacy.close();
    await transport.close();
    await layerGateway.close();
    await ai.close();
    await aiLegacy.close();
    await router.close();
  };
  return { calls, close, eras };
}

const servers = { sse: await startServer(false), json: await startServer(true) };
const clients = { sse: await clientsOf(servers.sse.url), json: await clientsOf(servers.json.url) };
const times: Record<string, number[]> = {};
const entries = Object.entries(clients).flatMap(([mode, c]) =>
  Object.entries(c.calls).map(([name, call]) => [`${mode} ${name}`, call] as const)
);
// Walked before each call with `--cold`: larger than the machine's caches.
const memory = new Float64Array(4 << 20);
const coolCaches = () => {
  for (let i = 0; i < memory.length; i += 8) memory[i]++;
};
for (let round = 0; round < rounds + 50; round++) {
  const order = [...entries].sort(() => Math.random() - 0.5);
  for (const [name, call] of order) {
    if (cold) coolCaches();
    const started = performance.now();
    await call();
    if (round >= 50) (times[name] ??= []).push(performance.now() - started); // 50 warm-up rounds
  }
}
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
/**
 * The median of the rounds' ratios of `a` to `b` (each round runs both, in a shuffled order) and
 * its 95 % bootstrap interval: whether one is slower than the other beyond the run's noise.
 */
function pairedRatio(a: number[], b: number[]): string {
  const ratios = a.map((value, round) => value / b[round]);
  const medians = Array.from(
    { length: 1000 },
    () => median(Array.from(ratios, () => ratios[Math.floor(Math.random() * ratios.length)])),
  )
    .sort((x, y) => x - y);
  return `${median(ratios).toFixed(3)}× (95 % interval ${medians[25].toFixed(3)}–${
    medians[974].toFixed(3)
  })`;
}
const us = (values: number[]) => `${(median(values) * 1000).toFixed(0)} µs`;
for (const mode of ["sse", "json"] as const) {
  console.log(
    `${mode.toUpperCase()} answers (${clients[mode].eras}), median of ${rounds}${
      cold ? ", caches cooled before each call" : ""
    }:`,
  );
  for (const era of ["2026", "2025"]) {
    const [raw, floor, ours, ai] = ["raw SDK", "SDK floor", "toolroute", "@ai-sdk/mcp"].map((
      name,
    ) => times[`${mode} ${era} ${name}`]);
    console.log(
      `  ${era}: raw SDK ${us(raw)}, SDK floor ${us(floor)}, toolroute ${us(ours)}, ` +
        `@ai-sdk/mcp ${us(ai)}`,
    );
    console.log(`    the SDK floor per round over @ai-sdk/mcp: ${pairedRatio(floor, ai)}`);
    console.log(`    toolroute per round over the raw SDK: ${pairedRatio(ours, raw)}`);
    console.log(`    toolroute per round over @ai-sdk/mcp: ${pairedRatio(ours, ai)}`);
  }
  const layer = (name: string) => times[`${mode} 2026 ${name}`];
  console.log(
    `  2026 layers over the one below, per round: transport over the SDK floor ${
      pairedRatio(layer("transport"), layer("SDK floor"))
    }, gateway over transport ${pairedRatio(layer("gateway"), layer("transport"))}, ` +
      `router over gateway ${pairedRatio(layer("toolroute"), layer("gateway"))}`,
  );
}
await clients.sse.close();
await clients.json.close();
await servers.sse.close();
await servers.json.close();

/**
 * Per remote call in each MCP era, side by side in one run: the raw SDK 2.x `Client`, toolroute's
 * gateway and `@ai-sdk/mcp`, each calling `echo` on one dual-era SDK 2.x server (in its own
 * process), once per round in a shuffled order so load from other processes hits all alike. The
 * 2026-07-28 era is pinned for the raw client and toolroute (`protocol: "2026-07-28"`); the 2025
 * era is `versionNegotiation: legacy` and `protocol: "2025"`. `@ai-sdk/mcp` negotiates as it does.
 * Two upstreams: answers as SSE streams and as plain JSON. Prints medians and ratios to the raw
 * SDK of the same era, and toolroute's 2026-07-28 median to `@ai-sdk/mcp`'s (which speaks that
 * era with this server).
 *
 * Run: `deno run --config bench/deno.json --no-prompt -A bench/era_call_interleaved.ts [rounds=500]`
 *
 * @module
 */

// Comparison-only peer: imported here, never a dependency of the library.
// deno-lint-ignore no-import-prefix
import { createMCPClient } from "npm:@ai-sdk/mcp@2.0.99";
import { Client, StreamableHTTPClientTransport } from "../src/core/mcp/mcp_sdk.ts";
import { ToolRouter } from "../mod.ts";
import { startBenchServer } from "./_bench_server.ts";
import { McpGateway } from "../src/core/mcp/mod.ts";

const rounds = Number(Deno.args[0] ?? 500);

async function startServer(json: boolean) {
  const server = await startBenchServer("./_era_bench_server.ts", { args: json ? ["--json"] : [] });
  return { url: server.line, close: server.close };
}

async function clientsOf(url: string) {
  const modern = new Client({ name: "bench", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  await modern.connect(new StreamableHTTPClientTransport(new URL(url)));
  const legacy = new Client({ name: "bench", version: "1.0.0" });
  await legacy.connect(new StreamableHTTPClientTransport(new URL(url)));
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
  const args = { text: "hi" };
  const calls: Record<string, () => Promise<unknown>> = {
    "2026 raw SDK": () => modern.callTool({ name: "echo", arguments: args }),
    "2026 toolroute": () => ourModern.invoke(ourModern.names[0], args),
    "2025 raw SDK": () => legacy.callTool({ name: "echo", arguments: args }),
    "2025 toolroute": () => ourLegacy.invoke(ourLegacy.names[0], args),
    "@ai-sdk/mcp": async () =>
      await aiEcho.execute!(args, { toolCallId: "1", messages: [], context: {} }),
  };
  const eras = gateway.status().map((s) => `${s.id}: ${s.protocol}`).join(", ");
  const close = async () => {
    await modern.close();
    await legacy.close();
    await ai.close();
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
for (let round = 0; round < rounds + 50; round++) {
  const order = [...entries].sort(() => Math.random() - 0.5);
  for (const [name, call] of order) {
    const started = performance.now();
    await call();
    if (round >= 50) (times[name] ??= []).push(performance.now() - started); // 50 warm-up rounds
  }
}
const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
for (const mode of ["sse", "json"] as const) {
  console.log(`${mode.toUpperCase()} answers (${clients[mode].eras}), median of ${rounds}:`);
  for (const era of ["2026", "2025"]) {
    const raw = median(times[`${mode} ${era} raw SDK`]);
    const ours = median(times[`${mode} ${era} toolroute`]);
    console.log(
      `  ${era}: raw SDK ${(raw * 1000).toFixed(0)} µs, toolroute ${(ours * 1000).toFixed(0)} µs (${
        (ours / raw).toFixed(2)
      }×)`,
    );
  }
  const ai = median(times[`${mode} @ai-sdk/mcp`]);
  const raw = median(times[`${mode} 2026 raw SDK`]);
  const ours = median(times[`${mode} 2026 toolroute`]);
  console.log(
    `  @ai-sdk/mcp ${(ai * 1000).toFixed(0)} µs (${(ai / raw).toFixed(2)}× the 2026 raw SDK; ` +
      `2026 toolroute ${(ours / ai).toFixed(2)}× @ai-sdk/mcp)`,
  );
}
await clients.sse.close();
await clients.json.close();
await servers.sse.close();
await servers.json.close();

/**
 * Throughput of `serve`'s HTTP handler in the 2026-07-28 era against the raw SDK 2.x
 * `createMcpHandler` serving the same function tool: 100 concurrent clients send `tools/call`
 * (the same bytes to both, bearer token included), the servers run in a child process of their
 * own (`_serve_throughput_server.ts`). Phases alternate (toolroute, raw, toolroute, …), so load
 * from other processes on a shared machine hits both alike. Prints calls per second and the p99
 * latency of each, and the ratio (target: toolroute ≥ 0.8 × raw, with policy and audit on); then
 * calls per CPU-second of the server process (one core's worth of its own time, read from it
 * before and after each phase), whose ratio stays put when other processes take the cores.
 *
 * Run: `deno run --config bench/deno.json --no-prompt -A bench/serve_throughput.ts [phases=6] [seconds=2]`.
 *
 * @module
 */
import { startBenchServer } from "./_bench_server.ts";

const phases = Number(Deno.args[0] ?? 6);
const seconds = Number(Deno.args[1] ?? 2);
const CLIENTS = 100;
const servers = await startBenchServer("./_serve_throughput_server.ts", { permission: "-A" });
const urls = JSON.parse(servers.line) as { toolroute: string; raw: string; cpu: string };
const body = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: {
    name: "echo",
    arguments: { text: "hello" },
    _meta: {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
      "io.modelcontextprotocol/clientCapabilities": {},
    },
  },
});
const headers = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  authorization: "Bearer bench-token-0123456789",
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": "tools/call",
  "mcp-name": "echo",
};

async function phase(url: string): Promise<{ calls: number; latencies: number[] }> {
  const latencies: number[] = [];
  const end = performance.now() + seconds * 1000;
  await Promise.all(Array.from({ length: CLIENTS }, async () => {
    while (performance.now() < end) {
      const started = performance.now();
      const response = await fetch(url, { method: "POST", headers, body });
      const answer = await response.json();
      if (answer.result?.content?.[0]?.text !== "hello") {
        throw new Error(`unexpected answer: ${JSON.stringify(answer)}`);
      }
      latencies.push(performance.now() - started);
    }
  }));
  return { calls: latencies.length, latencies };
}

const totals = {
  toolroute: { calls: 0, latencies: [] as number[], cpuMicros: 0 },
  raw: { calls: 0, latencies: [] as number[], cpuMicros: 0 },
};
const serverCpu = async () => await (await fetch(urls.cpu)).json() as number;
// Warm both up first.
await phase(urls.toolroute);
await phase(urls.raw);
for (let i = 0; i < phases; i++) {
  const order: ("toolroute" | "raw")[] = i % 2 === 0 ? ["toolroute", "raw"] : ["raw", "toolroute"];
  for (const name of order) {
    const before = await serverCpu();
    const result = await phase(urls[name]);
    totals[name].cpuMicros += await serverCpu() - before;
    totals[name].calls += result.calls;
    totals[name].latencies.push(...result.latencies);
  }
}
const p99 = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length * 0.99)];
const rate = (name: "toolroute" | "raw") => totals[name].calls / (phases * seconds);
for (const name of ["toolroute", "raw"] as const) {
  console.log(
    `${name.padEnd(9)} ${rate(name).toFixed(0).padStart(6)} calls/s  p99 ${
      p99(totals[name].latencies).toFixed(1)
    } ms  (${CLIENTS} clients, 2026-07-28, JSON answers)`,
  );
}
console.log(`ratio toolroute / raw: ${(rate("toolroute") / rate("raw")).toFixed(2)}`);
const perCore = (name: "toolroute" | "raw") => totals[name].calls / totals[name].cpuMicros * 1e6;
console.log(
  `per core: toolroute ${perCore("toolroute").toFixed(0)}, raw ${
    perCore("raw").toFixed(0)
  } calls per CPU-second of the server; ratio ${
    (perCore("toolroute") / perCore("raw")).toFixed(2)
  }`,
);
await servers.close();

/**
 * The client's own CPU per remote call, without the network or a server process: the raw SDK 2.x
 * `Client` and toolroute's gateway (through a router) call `echo` on one dual-era SDK 2.x
 * handler in this process, whose `tools/call` answers are canned after the first (so the server
 * costs nothing per call; what is measured is each client's work). Blocks of calls alternate in a
 * shuffled order; CPU time of the process per call (user + system), median and lowest of the
 * blocks. `--json` answers with JSON bodies (of declared length, as a server sends them), else
 * with SSE streams; `--2025` speaks the 2025 era, else 2026-07-28 (pinned on both sides).
 *
 * Run: `deno run --config bench/deno.json --no-prompt -A bench/era_call_cpu.ts [calls=200]
 * [--blocks=21] [--json] [--2025]`
 *
 * @module
 */
import process from "node:process";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import { Client, StreamableHTTPClientTransport } from "../src/core/mcp/mcp_sdk.ts";
import { ToolRouter } from "../mod.ts";
import { McpGateway } from "../src/core/mcp/mod.ts";

const json = Deno.args.includes("--json");
const legacy = Deno.args.includes("--2025");
const calls = Number(Deno.args.find((arg) => /^\d+$/.test(arg)) ?? 200);
const blocks = Number(Deno.args.find((arg) => arg.startsWith("--blocks="))?.slice(9) ?? 21);

const handler = createMcpHandler(() => {
  const server = new McpServer({ name: "era-bench", version: "1.0.0" });
  server.registerTool("echo", {
    description: "Echoes text",
    inputSchema: z.object({ text: z.string() }),
  }, ({ text }) => ({ content: [{ type: "text", text }] }));
  return server;
}, { legacy: "stateless", responseMode: json ? "json" : "sse" });

const canned = new Map<string, { body: string; headers: Headers; status: number }>();
const fetchInProcess: typeof fetch = async (input, init) => {
  const request = new Request(input, init);
  if (request.method !== "POST") return await handler.fetch(request);
  const text = await request.text();
  const forward = () =>
    handler.fetch(
      new Request(request.url, { method: "POST", headers: request.headers, body: text }),
    );
  const message = JSON.parse(text);
  if (message.method !== "tools/call") return await forward();
  const key = request.headers.get("mcp-protocol-version") ?? "";
  let answer = canned.get(key);
  if (answer === undefined) {
    const response = await forward();
    answer = { body: await response.text(), headers: response.headers, status: response.status };
    canned.set(key, answer);
  }
  const body = answer.body.replace(/"id":\d+/, `"id":${message.id}`);
  const headers = new Headers(answer.headers);
  headers.set("content-length", String(new TextEncoder().encode(body).length));
  return new Response(body, { status: answer.status, headers });
};

const url = "http://127.0.0.1:9/mcp";
const raw = new Client(
  { name: "bench", version: "1.0.0" },
  legacy ? {} : { versionNegotiation: { mode: { pin: "2026-07-28" } } },
);
await raw.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: fetchInProcess }));
const gateway = new McpGateway({
  fetch: fetchInProcess,
  servers: { s: { url, protocol: legacy ? "2025" : "2026-07-28" } },
});
const router = new ToolRouter({ gateway });
const tools = await router.expose({ mcpServers: ["s"] });
const args = { text: "hi" };
const paths: Record<string, () => Promise<unknown>> = {
  "raw SDK": () => raw.callTool({ name: "echo", arguments: args }),
  toolroute: () => tools.invoke(tools.names[0], args),
};
const cpu: Record<string, number[]> = {};
for (const call of Object.values(paths)) for (let i = 0; i < 300; i++) await call();
for (let block = 0; block < blocks; block++) {
  for (const [name, call] of Object.entries(paths).sort(() => Math.random() - 0.5)) {
    const before = process.cpuUsage();
    for (let i = 0; i < calls; i++) await call();
    const used = process.cpuUsage(before);
    (cpu[name] ??= []).push((used.user + used.system) / calls);
  }
}
const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
const rawMedian = median(cpu["raw SDK"]);
const rawLowest = Math.min(...cpu["raw SDK"]);
console.log(`${json ? "JSON" : "SSE"} answers, ${legacy ? "2025" : "2026-07-28"}, CPU per call:`);
for (const name of Object.keys(paths)) {
  const mid = median(cpu[name]);
  const lowest = Math.min(...cpu[name]);
  console.log(
    `  ${name}: median ${mid.toFixed(0)} µs (+${(mid - rawMedian).toFixed(0)}), lowest ${
      lowest.toFixed(0)
    } µs (+${(lowest - rawLowest).toFixed(0)})`,
  );
}
await raw.close();
await router.close();

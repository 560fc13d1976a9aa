/**
 * The client's own CPU per remote call, without the network or a server process: the raw SDK 2.x
 * `Client`, the client the gateway makes (`CallingClient`: the SDK client without its per-call
 * result-schema probe) on the SDK's transport and on toolroute's, toolroute's gateway (through a
 * router) and `@ai-sdk/mcp` call `echo` on one dual-era SDK 2.x handler
 * in this process, whose `tools/call` answers are canned after the first (so the server costs
 * nothing per call; what is measured is each client's work). Blocks of calls alternate in a shuffled order; CPU time of the process per call (user +
 * system): the median of the blocks, and the median of each block's difference to the raw SDK
 * block run next to it (steadier under load from other processes). `--json` answers with JSON bodies (of declared length, as a server sends them), else
 * with SSE streams; `--2025` speaks the 2025 era, else 2026-07-28 (pinned on both sides).
 * `--remote` calls `_era_bench_server.ts` in its own process instead (real sockets and bodies; the
 * CPU measured is still this process's, the client's).
 *
 * Run: `deno run --config bench/deno.json --no-prompt -A bench/era_call_cpu.ts [calls=200]
 * [--blocks=21] [--json] [--2025] [--remote]`
 *
 * @module
 */
import process from "node:process";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
// Comparison-only peer: imported here, never a dependency of the library.
// deno-lint-ignore no-import-prefix
import { createMCPClient } from "npm:@ai-sdk/mcp@2.0.99";
import { CallingClient, Client, StreamableHTTPClientTransport } from "../src/core/mcp/mcp_sdk.ts";
import { ToolRouter } from "../mod.ts";
import { McpGateway } from "../src/core/mcp/mod.ts";
import { HttpClientTransport } from "../src/core/mcp/gateway/http/http_client_transport.ts";
import { startBenchServer } from "./_bench_server.ts";

const json = Deno.args.includes("--json");
const legacy = Deno.args.includes("--2025");
const calls = Number(Deno.args.find((arg) => /^\d+$/.test(arg)) ?? 200);
const blocks = Number(Deno.args.find((arg) => arg.startsWith("--blocks="))?.slice(9) ?? 21);
const remote = Deno.args.includes("--remote");

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

/** `_era_bench_server.ts` in its own process: its URL and how to stop it. */
async function startServer() {
  const server = await startBenchServer("./_era_bench_server.ts", { args: json ? ["--json"] : [] });
  return { url: server.line, close: server.close };
}

const server = remote ? await startServer() : undefined;
const url = server?.url ?? "http://127.0.0.1:9/mcp";
const clientFetch = remote ? undefined : fetchInProcess;
const sdkClient = async (
  Made: typeof Client,
  transport: StreamableHTTPClientTransport | HttpClientTransport,
) => {
  const client = new Made(
    { name: "bench", version: "1.0.0" },
    legacy ? {} : { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  await client.connect(transport);
  return client;
};
const sdkTransport = () => new StreamableHTTPClientTransport(new URL(url), { fetch: clientFetch });
const raw = await sdkClient(Client, sdkTransport());
// The gateway's client on the SDK's transport: what the SDK's probe costs, apart.
const calling = await sdkClient(CallingClient, sdkTransport());
// The gateway's client over toolroute's transport (guarded fetch, request tracking).
const overOurs = await sdkClient(
  CallingClient,
  new HttpClientTransport({
    url: new URL(url),
    kind: "http",
    fetch: clientFetch,
    maxBodyBytes: 64 * 1024 * 1024,
  }),
);
const gateway = new McpGateway({
  fetch: clientFetch,
  servers: { s: { url, protocol: legacy ? "2025" : "2026-07-28" } },
});
const router = new ToolRouter({ gateway });
const tools = await router.expose({ mcpServers: ["s"] });
const args = { text: "hi" };
// `@ai-sdk/mcp` speaks 2026-07-28 whenever the server does, and 2025 without its discovery probe.
const ai = await createMCPClient({
  transport: { type: "http", url, fetch: clientFetch },
  protocolVersionDiscovery: !legacy,
});
const aiEcho = (await ai.tools()).echo;
const paths: Record<string, () => Promise<unknown>> = {
  "raw SDK": () => raw.callTool({ name: "echo", arguments: args }),
  "SDK client without the probe": () => calling.callTool({ name: "echo", arguments: args }),
  "the same over toolroute's transport": () => overOurs.callTool({ name: "echo", arguments: args }),
  toolroute: () => tools.invoke(tools.names[0], args),
  "@ai-sdk/mcp": async () =>
    await aiEcho!.execute!(args, { toolCallId: "1", messages: [], context: {} }),
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
const signed = (value: number) => `${Math.round(value) < 0 ? "" : "+"}${Math.round(value)}`;
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(
  `${json ? "JSON" : "SSE"} answers, ${legacy ? "2025" : "2026-07-28"}, ${
    remote ? "server in its own process" : "canned"
  }, CPU per call (median of ${blocks} blocks; beyond the raw SDK: median of the differences ` +
    `between blocks run back to back, and their middle half):`,
);
for (const name of Object.keys(paths)) {
  const gaps = cpu[name].map((value, block) => value - cpu["raw SDK"][block]).sort((a, b) => a - b);
  const quarter = (at: number) => gaps[Math.floor(gaps.length * at)].toFixed(0);
  console.log(
    `  ${name}: ${median(cpu[name]).toFixed(0)} µs` +
      (name === "raw SDK" ? "" : `, ${signed(median(gaps))} (${quarter(0.25)}..${quarter(0.75)})`),
  );
}
await raw.close();
await calling.close();
await overOurs.close();
await ai.close();
await router.close();
await server?.close();

/**
 * Per-call latency of a trivial tool, measured interleaved: each round calls the raw SDK,
 * toolroute, `@ai-sdk/mcp` and `@langchain/mcp-adapters` once each (rotating the order), so load
 * from other processes on a shared machine hits all four alike. `deno bench` runs its benches one
 * after another, and on a loaded machine its "call" group mostly measures the load's drift.
 *
 * Run: `deno run --config bench/deno.json --no-prompt -A bench/gateway_call_interleaved.ts [rounds=1000]`; prints medians.
 *
 * @module
 */

// Comparison-only peers: imported here, never dependencies of the library.
// deno-lint-ignore no-import-prefix
import { createMCPClient } from "npm:@ai-sdk/mcp@2.0.99";
// deno-lint-ignore no-import-prefix
import { MultiServerMCPClient } from "npm:@langchain/mcp-adapters@1.1.4";
import { Client, StreamableHTTPClientTransport } from "../src/core/mcp/mcp_sdk.ts";
import { McpGateway, ToolRouter } from "../mod.ts";

const rounds = Number(Deno.args[0] ?? 1000);
const server = new Deno.Command(Deno.execPath(), {
  args: [
    "run",
    "--no-prompt",
    "--allow-net=127.0.0.1",
    new URL("./_gateway_bench_server.ts", import.meta.url).pathname,
    "--servers=1",
  ],
  stdin: "piped",
  stdout: "piped",
}).spawn();
const lines = server.stdout.pipeThrough(new TextDecoderStream()).getReader();
const [url]: string[] = JSON.parse((await lines.read()).value!);

const raw = new Client({ name: "bench", version: "1.0.0" });
await raw.connect(new StreamableHTTPClientTransport(new URL(url)));
await using gateway = new McpGateway({ servers: { echo: { url } } });
const toolSet = await new ToolRouter({ gateway }).expose({ mcpServers: ["echo"] });
const ai = await createMCPClient({ transport: { type: "http", url } });
const aiEcho = (await ai.tools()).echo;
const lc = new MultiServerMCPClient({ mcpServers: { echo: { url, transport: "http" } } });
const lcEcho = (await lc.getTools()).find((tool) => tool.name.endsWith("echo"))!;

const clients: Record<string, () => Promise<unknown>> = {
  "raw SDK Client.callTool": () => raw.callTool({ name: "echo", arguments: { text: "hi" } }),
  "toolroute toolSet.invoke": () => toolSet.invoke("echo", '{"text":"hi"}'),
  "@ai-sdk/mcp tool.execute": async () =>
    await aiEcho.execute!({ text: "hi" }, { toolCallId: "1", messages: [], context: {} }),
  "@langchain/mcp-adapters tool.invoke": () => lcEcho.invoke({ text: "hi" }),
};
const names = Object.keys(clients);
const times = new Map(names.map((name) => [name, [] as number[]]));
for (let round = -100; round < rounds; round++) { // 100 warm-up rounds
  for (let k = 0; k < names.length; k++) {
    const name = names[(round + 100 + k) % names.length];
    const started = performance.now();
    await clients[name]();
    if (round >= 0) times.get(name)!.push(performance.now() - started);
  }
}
const median = (values: number[]) => values.sort((a, b) => a - b)[values.length >> 1];
const base = median(times.get(names[0])!);
for (const name of names) {
  const value = median(times.get(name)!);
  console.log(
    `${name.padEnd(38)} median ${value.toFixed(3)} ms  ${(value / base).toFixed(2)}x raw`,
  );
}

await raw.close();
await ai.close();
await lc.close();
await server.stdin.close();
await lines.cancel();
await server.status;

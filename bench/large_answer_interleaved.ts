/**
 * Reading one large answer: a tool result of 20 MB in a single SSE event (and, as a second row,
 * as one JSON body), read by the raw SDK 2.x `Client` and by toolroute's gateway, interleaved
 * round by round so that load from other processes hits both alike. toolroute reads every answer
 * through the SDK client over its guarded fetch (host allowlist, redirects refused, body bound),
 * so the ratio is the guard's cost; the hand-built reader it replaced took time growing with the
 * square of the event's size (20 MB: 9.8 s against 0.49 s for the raw SDK).
 *
 * Run: `deno run --config bench/deno.json --no-prompt -A bench/large_answer_interleaved.ts [rounds=5] [megabytes=20]`
 *
 * @module
 */

import { Client, StreamableHTTPClientTransport } from "../src/core/mcp/mcp_sdk.ts";
import { ToolRouter } from "../mod.ts";
import { McpGateway } from "../src/core/mcp/mod.ts";

const rounds = Number(Deno.args[0] ?? 5);
const megabytes = Number(Deno.args[1] ?? 20);
const text = "x".repeat(megabytes * 1024 * 1024);

/** A 2025-era server answering `tools/call` with one large SSE event or one JSON body. */
function startServer(sse: boolean): { url: string; close: () => Promise<void> } {
  const encoder = new TextEncoder();
  const big = encoder.encode(text);
  const http = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: () => {} },
    async (request) => {
      if (request.method !== "POST") return new Response(null, { status: 405 });
      const message = await request.json();
      if (message.id === undefined) return new Response(null, { status: 202 });
      const json = (body: unknown) =>
        Response.json({ jsonrpc: "2.0", id: message.id, ...body as object });
      switch (message.method) {
        case "initialize":
          return json({
            result: {
              protocolVersion: message.params.protocolVersion,
              capabilities: { tools: {} },
              serverInfo: { name: "large", version: "1.0.0" },
            },
          });
        case "tools/list":
          return json({ result: { tools: [{ name: "big", inputSchema: { type: "object" } }] } });
        case "tools/call": {
          const head = encoder.encode(
            `${sse ? "event: message\ndata: " : ""}{"jsonrpc":"2.0","id":${
              JSON.stringify(message.id)
            },"result":{"content":[{"type":"text","text":"`,
          );
          const tail = encoder.encode(`"}]}}${sse ? "\n\n" : ""}`);
          const body = new Uint8Array(head.length + big.length + tail.length);
          body.set(head);
          body.set(big, head.length);
          body.set(tail, head.length + big.length);
          return new Response(body, {
            headers: { "content-type": sse ? "text/event-stream" : "application/json" },
          });
        }
        default:
          return json({ error: { code: -32601, message: "Method not found" } });
      }
    },
  );
  return {
    url: `http://127.0.0.1:${(http.addr as Deno.NetAddr).port}/mcp`,
    close: () => http.shutdown(),
  };
}

const rows: string[] = [];
for (const sse of [true, false]) {
  const server = startServer(sse);
  const raw = new Client({ name: "raw", version: "1.0.0" });
  await raw.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  const gateway = new McpGateway({
    servers: { large: { url: server.url } },
    maxResultChars: text.length + 100,
    requestTimeoutMs: 120_000,
  });
  const router = new ToolRouter({ gateway, maxResultChars: text.length + 100 });
  const tools = await router.expose({ mcpServers: ["large"] });
  const times = { raw: [] as number[], toolroute: [] as number[] };
  const candidates = {
    raw: async () => {
      const result = await raw.callTool({ name: "big", arguments: {} }, { timeout: 120_000 });
      return (result.content as { text: string }[])[0].text.length;
    },
    toolroute: async () => {
      const result = await tools.call("big", {});
      return (result.content?.[0] as { text: string }).text.length;
    },
  };
  for (let round = 0; round <= rounds; round++) {
    const order = round % 2 === 0 ? ["raw", "toolroute"] as const : ["toolroute", "raw"] as const;
    for (const name of order) {
      const started = performance.now();
      const length = await candidates[name]();
      const ms = performance.now() - started;
      if (length !== text.length) throw new Error(`${name} read ${length} characters`);
      if (round > 0) times[name].push(ms); // round 0 warms both up
    }
  }
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const rawMs = median(times.raw);
  const ourMs = median(times.toolroute);
  rows.push(
    `${megabytes} MB ${sse ? "SSE event" : "JSON body"}: raw SDK ${rawMs.toFixed(0)} ms, ` +
      `toolroute ${ourMs.toFixed(0)} ms, ratio ${
        (ourMs / rawMs).toFixed(2)
      }x (median of ${rounds})`,
  );
  await router.close();
  await raw.close();
  await server.close();
}
console.log(rows.join("\n"));

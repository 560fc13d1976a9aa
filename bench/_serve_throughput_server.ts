/**
 * The servers of `serve_throughput.ts`, in a process of their own: `toolroute`'s `mcpHttpHandler`
 * (a function tool, with a policy and an audit sink) and the raw SDK 2.x `createMcpHandler`
 * (`McpServer` with the same tool), each on 127.0.0.1, and a third that answers this process's CPU
 * time so far (user + system, µs). Prints `{"toolroute":URL,"raw":URL,"cpu":URL}`.
 *
 * @module
 */
import process from "node:process";
import { z } from "zod";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { defineTool, ToolRouter } from "../mod.ts";
import { mcpHttpHandler } from "../src/core/mcp/mod.ts";

const echo = defineTool({
  name: "echo",
  description: "Echoes text",
  input: z.object({ text: z.string() }),
  run: ({ text }) => text,
});
// Policy and audit on, as served: the audit sink keeps a count (a file sink adds disk I/O).
let records = 0;
const router = new ToolRouter({
  functions: [echo],
  policy: { allow: ["echo"], deny: ["rm_*"], default: "deny" },
  audit: { write: () => void records++ },
});
const tools = await router.expose({ functions: ["echo"] });
const toolroute = mcpHttpHandler({ tools, tokens: { "bench-token-0123456789": "bench" } });
const raw = createMcpHandler(() => {
  const server = new McpServer({ name: "raw", version: "1.0.0" });
  server.registerTool(
    "echo",
    { description: "Echoes text", inputSchema: z.object({ text: z.string() }) },
    ({ text }) => ({ content: [{ type: "text", text }] }),
  );
  return server;
}, { legacy: "reject" });
const a = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, toolroute);
const b = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  (request) => raw.fetch(request),
);
const cpu = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
  const { user, system } = process.cpuUsage();
  return Response.json(user + system);
});
console.log(JSON.stringify({
  toolroute: `http://127.0.0.1:${a.addr.port}/mcp`,
  raw: `http://127.0.0.1:${b.addr.port}/mcp`,
  cpu: `http://127.0.0.1:${cpu.addr.port}/`,
}));
await new Promise<void>((resolve) => Deno.addSignalListener("SIGTERM", resolve));
console.error(`audit records: ${records}`);
await a.shutdown();
await b.shutdown();
await cpu.shutdown();
Deno.exit(0);

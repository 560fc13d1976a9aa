/**
 * The bench server of `era_call_interleaved.ts`: one dual-era SDK 2.x endpoint
 * (`createMcpHandler`, 2026-07-28 requests per request, 2025 ones stateless) with an `echo` tool,
 * on 127.0.0.1 in its own process. `--json` answers modern requests with plain JSON bodies, else
 * with SSE streams. `whoami` answers the request's `authorization` header reversed (the per-user
 * benches check that no user sees another's answer; reversed, so the gateway's redaction of a
 * connection's own header values leaves it). Prints its URL on the first line of stdout.
 *
 * @module
 */
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";

const json = Deno.args.includes("--json");
const handler = createMcpHandler((ctx) => {
  const server = new McpServer({ name: "era-bench", version: "1.0.0" });
  server.registerTool("echo", {
    description: "Echoes text",
    inputSchema: z.object({ text: z.string() }),
  }, ({ text }) => ({ content: [{ type: "text", text }] }));
  server.registerTool("whoami", { description: "The caller's authorization header" }, () => ({
    content: [{
      type: "text",
      text: [...ctx.requestInfo?.headers.get("authorization") ?? ""].reverse().join(""),
    }],
  }));
  return server;
}, { legacy: "stateless", responseMode: json ? "json" : "sse" });
const http = Deno.serve(
  { port: 0, hostname: "127.0.0.1", onListen: () => {} },
  (request) => handler.fetch(request),
);
console.log(`http://127.0.0.1:${(http.addr as Deno.NetAddr).port}/mcp`);

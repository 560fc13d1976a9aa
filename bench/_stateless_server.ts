/**
 * A stateless Streamable HTTP MCP server answering plain JSON (no session, no SSE), in its own process for the
 * user-connection benchmarks: a fresh SDK `McpServer` per request, as stateless deployments do. Tools: `echo {text}`
 * and `whoami` (the request's `authorization` header, reversed: the gateway redacts a connection's own header values). Prints its URL as one JSON line; stops when stdin closes.
 *
 * Usage: `deno run --allow-net=127.0.0.1 bench/_stateless_server.ts`
 *
 * @module
 */

import { z } from "zod";
import { WebStandardStreamableHTTPServerTransport } from "../src/core/mcp/mcp_sdk.ts";
import { McpServer } from "@modelcontextprotocol/server";

const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
  const mcp = new McpServer({ name: "stateless", version: "1.0.0" });
  mcp.registerTool("echo", {
    description: "Echoes text",
    inputSchema: z.object({ text: z.string() }),
  }, ({ text }) => ({ content: [{ type: "text", text }] }));
  mcp.registerTool("whoami", { description: "The caller's authorization header" }, () => ({
    content: [{
      type: "text",
      text: [...request.headers.get("authorization") ?? ""].reverse().join(""),
    }],
  }));
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await mcp.connect(transport);
  return await transport.handleRequest(request);
});
const url = `http://127.0.0.1:${server.addr.port}/mcp`;
await Deno.stdout.write(new TextEncoder().encode(JSON.stringify([url]) + "\n"));
for await (const _ of Deno.stdin.readable) {
  // Runs until stdin closes.
}
await server.shutdown();

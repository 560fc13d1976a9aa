/**
 * The bench server of `era_call_interleaved.ts`: one dual-era SDK 2.x endpoint
 * (`createMcpHandler`, 2026-07-28 requests per request, 2025 ones stateless) with an `echo` tool,
 * on 127.0.0.1 in its own process. `--json` answers with plain JSON bodies, else with SSE streams:
 * 2025 requests too, through a stateless transport of their own in front of a modern-only handler
 * (the SDK's stateless fallback answers only with SSE), as the SDK documents with
 * `isLegacyRequest`. `whoami` answers the request's `authorization` header reversed (the per-user
 * benches check that no user sees another's answer; reversed, so the gateway's redaction of a
 * connection's own header values leaves it). Prints its URL on the first line of stdout.
 *
 * @module
 */
import {
  createMcpHandler,
  isLegacyRequest,
  McpServer,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { z } from "zod";

const json = Deno.args.includes("--json");
/** The server of one request, whose `whoami` reads that request's headers. */
function serverFor(headers: Headers | undefined): McpServer {
  const server = new McpServer({ name: "era-bench", version: "1.0.0" });
  server.registerTool("echo", {
    description: "Echoes text",
    inputSchema: z.object({ text: z.string() }),
  }, ({ text }) => ({ content: [{ type: "text", text }] }));
  server.registerTool("whoami", { description: "The caller's authorization header" }, () => ({
    content: [{
      type: "text",
      text: [...headers?.get("authorization") ?? ""].reverse().join(""),
    }],
  }));
  return server;
}
const handler = createMcpHandler((ctx) => serverFor(ctx.requestInfo?.headers), {
  legacy: json ? "reject" : "stateless",
  responseMode: json ? "json" : "sse",
});

/** A 2025 request answered with a JSON body by a stateless server of its own. */
async function legacyJson(request: Request): Promise<Response> {
  const server = serverFor(request.headers);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  const response = await transport.handleRequest(request);
  await server.close();
  return response;
}

const http = Deno.serve(
  { port: 0, hostname: "127.0.0.1", onListen: () => {} },
  async (request) =>
    json && request.method === "POST" && await isLegacyRequest(request)
      ? legacyJson(request)
      : handler.fetch(request),
);
console.log(`http://127.0.0.1:${(http.addr as Deno.NetAddr).port}/mcp`);

/**
 * The interop matrix with the SDK 1.x line (`@modelcontextprotocol/sdk`), which toolroute no
 * longer uses itself: the gateway against a 1.x server over Streamable HTTP, and `serve`'s handler
 * against a 1.x client. Both speak the 2025 era (`initialize` and sessions); the gateway's
 * `server/discover` probe comes first and is refused.
 *
 * @module
 */
import { assertEquals } from "@std/assert";
// @ts-types="@modelcontextprotocol/sdk/server/mcp"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/client"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { defineTool, ToolRouter } from "../../mod.ts";
import { mcpHttpHandler } from "../../src/core/mcp/mod.ts";
import { createDenoGateway } from "../../src/deno/mcp/deno_gateway.ts";
import { z } from "zod";

/** A 1.x server over Streamable HTTP on 127.0.0.1, stateless (a fresh server per request). */
function startV1HttpServer(): { url: string; requests: string[]; close: () => Promise<void> } {
  const requests: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const body = request.method === "POST" ? await request.clone().json() : undefined;
    if (body?.method !== undefined) requests.push(body.method);
    const mcp = new McpServer({ name: "v1-http", version: "1.0.0" });
    mcp.registerTool("echo", {
      description: "Echoes text",
      inputSchema: { text: z.string() },
    }, ({ text }: { text: string }) => ({ content: [{ type: "text", text: `v1: ${text}` }] }));
    mcp.registerTool("size", {
      description: "A structured result",
      inputSchema: {},
      outputSchema: { width: z.number() },
    }, () => ({
      content: [{ type: "text", text: "wide" }],
      structuredContent: { width: 3 },
    }));
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
    });
    await mcp.connect(transport);
    return await transport.handleRequest(request);
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/mcp`,
    requests,
    close: () => server.shutdown(),
  };
}

Deno.test("the gateway calls a server built on @modelcontextprotocol/sdk 1.x over Streamable HTTP", async () => {
  const server = startV1HttpServer();
  try {
    await using gateway = createDenoGateway({ servers: { v1: { url: server.url } } });
    const router = new ToolRouter({ gateway });
    const tools = await router.expose({ mcpServers: ["v1"] });
    assertEquals(tools.missing, []);
    assertEquals(tools.names, ["echo", "size"]);
    assertEquals(await tools.invoke("echo", { text: "hi" }), "v1: hi");
    const size = await tools.call("size", {});
    assertEquals(size.structuredContent, { width: 3 });
    const bad = await tools.call("echo", { text: 5 });
    assertEquals(bad.code, "invalid_arguments", bad.text);
    // The 2025 era: the gateway's server/discover probe is refused, `initialize` follows.
    assertEquals(server.requests.slice(0, 2), ["server/discover", "initialize"]);
  } finally {
    await server.close();
  }
});

Deno.test("serve answers a client built on @modelcontextprotocol/sdk 1.x", async () => {
  const echo = defineTool({
    name: "echo",
    description: "Echoes text",
    input: z.object({ text: z.string() }),
    run: ({ text }) => `served: ${text}`,
  });
  const router = new ToolRouter({ functions: [echo] });
  const handler = mcpHttpHandler({ tools: () => router.expose({ functions: ["echo"] }) });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, handler);
  const client = new Client({ name: "v1-client", version: "1.0.0" });
  try {
    const transport = new StreamableHTTPClientTransport(
      new URL(`http://127.0.0.1:${server.addr.port}/mcp`),
    );
    await client.connect(transport);
    // A 2025-era session, as before the move to the 2.x server package.
    assertEquals(typeof transport.sessionId, "string");
    const { tools } = await client.listTools();
    assertEquals(tools.map((tool) => tool.name), ["echo"]);
    const result = await client.callTool({ name: "echo", arguments: { text: "hi" } });
    assertEquals(result.content, [{ type: "text", text: "served: hi" }]);
    const wrong = await client.callTool({ name: "echo", arguments: {} });
    assertEquals(wrong.isError, true);
  } finally {
    await client.close();
    await handler.close();
    await server.shutdown();
  }
});

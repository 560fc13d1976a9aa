/**
 * The gateway's cells of the interop matrix, one test each: a modern-only 2.x server (2026-07-28
 * only), a dual-era 2.x server, a server built on the 1.x SDK, and an old HTTP+SSE server. Every
 * cell connects with the default `protocol: "auto"` and asserts what went over the wire.
 *
 * @module
 */
import { assert, assertEquals } from "@std/assert";
// @ts-types="@modelcontextprotocol/sdk/server/mcp"
import { McpServer as V1McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport as V1Transport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { z } from "zod";
import { ToolRouter } from "../../mod.ts";
import { McpGateway } from "../../src/core/mcp/mod.ts";
import { startEraTestServer } from "../_helpers/mcp_era_test_server.ts";
import { startSseTestServer } from "../_helpers/mcp_sse_test_server.ts";

/** Lists and calls `echo` through a fresh gateway; returns the negotiated protocol version. */
async function callEcho(url: string): Promise<string | undefined> {
  const gateway = new McpGateway({ servers: { s: { url } } });
  const router = new ToolRouter({ gateway });
  try {
    const tools = await router.expose({ mcpServers: ["s"] });
    assertEquals(tools.missing, []);
    assert(tools.names.includes("echo"), tools.names.join());
    assert((await tools.invoke("echo", { text: "cell" })).endsWith("cell"));
    return gateway.status()[0].protocol;
  } finally {
    await router.close();
  }
}

Deno.test("gateway × modern-only 2.x server: the 2026-07-28 era, no initialize", async () => {
  const server = startEraTestServer({ legacy: "reject" });
  try {
    assertEquals(await callEcho(server.url), "2026-07-28");
    assertEquals(server.methods[0], "server/discover");
    assertEquals(server.methods.includes("initialize"), false);
  } finally {
    await server.close();
  }
});

Deno.test("gateway × dual-era 2.x server: server/discover and no initialize, no session", async () => {
  const server = startEraTestServer({ legacy: "stateless" });
  try {
    assertEquals(await callEcho(server.url), "2026-07-28");
    assertEquals(server.methods[0], "server/discover");
    assertEquals(server.methods.includes("initialize"), false);
    assertEquals(server.headersSeen.some((h) => h.has("mcp-session-id")), false);
  } finally {
    await server.close();
  }
});

Deno.test("gateway × 1.x server: the probe is refused, initialize follows (2025 era)", async () => {
  const methods: string[] = [];
  const http = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const body = request.method === "POST" ? await request.clone().json() : undefined;
    if (body?.method !== undefined) methods.push(body.method);
    const mcp = new V1McpServer({ name: "v1", version: "1.0.0" });
    mcp.registerTool(
      "echo",
      { inputSchema: { text: z.string() } },
      ({ text }: { text: string }) => ({
        content: [{ type: "text", text: `v1: ${text}` }],
      }),
    );
    const transport = new V1Transport({ sessionIdGenerator: undefined });
    await mcp.connect(transport);
    return await transport.handleRequest(request);
  });
  try {
    const protocol = await callEcho(`http://127.0.0.1:${http.addr.port}/mcp`);
    assert(protocol !== undefined && protocol < "2026", protocol);
    assertEquals(methods.slice(0, 2), ["server/discover", "initialize"]);
  } finally {
    await http.shutdown();
  }
});

Deno.test("gateway × old HTTP+SSE server: Streamable HTTP refused, SSE in the 2025 era", async () => {
  const server = await startSseTestServer();
  try {
    const protocol = await callEcho(server.url);
    assert(protocol !== undefined && protocol < "2026", protocol);
  } finally {
    await server.close();
  }
});

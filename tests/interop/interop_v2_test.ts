/**
 * The interop matrix with the split v2 SDK: the gateway against servers built on
 * `@modelcontextprotocol/server` 2.x (Streamable HTTP and stdio), and `serve`'s handler against a
 * client built on `@modelcontextprotocol/client` 2.x (the SDK line toolroute itself uses); the
 * SDK 1.x side is `interop_v1_test.ts`.
 *
 * @module
 */
import { assertEquals } from "@std/assert";
import { McpServer, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { fileURLToPath as fromFileUrl } from "node:url";
import { defineTool, toolOutput, ToolRouter } from "../../mod.ts";
import { mcpHttpHandler } from "../../src/core/mcp/mod.ts";
import { createDenoGateway } from "../../src/deno/mcp/deno_gateway.ts";
import { registerV2Tools, V2_PNG } from "./_v2_tools.ts";
import { z } from "zod";

const INTEROP_CONFIG = fromFileUrl(new URL("./deno.json", import.meta.url));
const STDIO_FIXTURE = fromFileUrl(new URL("./_v2_stdio_server.ts", import.meta.url));

/** A v2 server over Streamable HTTP on 127.0.0.1, stateless (a fresh server per request). */
function startV2HttpServer(): { url: string; close: () => Promise<void> } {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const mcp = new McpServer({ name: "v2-http", version: "2.0.0" });
    registerV2Tools(mcp);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
    });
    await mcp.connect(transport);
    return await transport.handleRequest(request);
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/mcp`,
    close: () => server.shutdown(),
  };
}

async function checkGateway(config: Record<string, unknown>) {
  await using gateway = createDenoGateway({ servers: { v2: config as never } });
  const router = new ToolRouter({ gateway });
  const tools = await router.expose({ mcpServers: ["v2"] });
  assertEquals(tools.missing, []);
  assertEquals(tools.names, ["echo", "picture"]);
  assertEquals(await tools.invoke("echo", { text: "hi" }), "v2: hi");
  const picture = await tools.call("picture", {});
  assertEquals(picture.text, "a 1x1 picture\n\n[image: image/png, 70 B]");
  assertEquals(picture.content[1], { type: "image", data: V2_PNG, mimeType: "image/png" });
  assertEquals(picture.structuredContent, { width: 1, height: 1 });
  const bad = await tools.call("echo", { text: 5 });
  assertEquals(bad.code, "invalid_arguments", bad.text);
}

Deno.test("the gateway calls a server built on @modelcontextprotocol/server 2.x over Streamable HTTP", async () => {
  const server = startV2HttpServer();
  try {
    await checkGateway({ url: server.url });
  } finally {
    await server.close();
  }
});

Deno.test("the gateway calls a server built on @modelcontextprotocol/server 2.x over stdio", async () => {
  await checkGateway({
    command: Deno.execPath(),
    args: ["run", "--config", INTEROP_CONFIG, STDIO_FIXTURE],
  });
});

Deno.test("serve answers a client built on @modelcontextprotocol/client 2.x", async () => {
  const chart = defineTool({
    name: "chart",
    description: "Draws a chart",
    input: z.object({ title: z.string() }),
    run: ({ title }) =>
      toolOutput({
        content: [{ type: "text", text: title }, {
          type: "image",
          data: V2_PNG,
          mimeType: "image/png",
        }],
      }),
  });
  const router = new ToolRouter({ functions: [chart] });
  const handler = mcpHttpHandler({ tools: () => router.expose({ functions: ["chart"] }) });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, handler);
  const client = new Client({ name: "v2-client", version: "2.0.0" });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.addr.port}/mcp`)),
    );
    const { tools } = await client.listTools();
    assertEquals(tools.map((tool) => tool.name), ["chart"]);
    const result = await client.callTool({ name: "chart", arguments: { title: "sales" } });
    assertEquals(result.content, [{ type: "text", text: "sales" }, {
      type: "image",
      data: V2_PNG,
      mimeType: "image/png",
    }]);
    const wrong = await client.callTool({ name: "chart", arguments: {} });
    assertEquals(wrong.isError, true);
  } finally {
    await client.close();
    await handler.close();
    await server.shutdown();
  }
});

import { assert, assertEquals } from "@std/assert";
import { z } from "zod";
import { ToolRouter } from "../../../../mod.ts";
import { McpGateway, type McpTransport, ToolSetServer } from "../../../../src/core/mcp/mod.ts";
import { Client } from "../../../../src/core/mcp/mcp_sdk.ts";
import { InMemoryTransport, McpServer } from "@modelcontextprotocol/server";

const png = btoa("\x89PNG".padEnd(300 * 1024, "\u00fe"));

/** An upstream like server-filesystem and server-everything: output schemas, media, resources. */
function upstream(): McpServer {
  const server = new McpServer({ name: "upstream", version: "1.0.0" });
  server.registerTool("read_text_file", {
    description: "Reads a file (plain text plus a structured copy, like server-filesystem)",
    inputSchema: z.object({ path: z.string() }),
    outputSchema: z.object({ content: z.string() }),
  }, ({ path }) => ({
    content: [{ type: "text", text: `line one of ${path}\nline two` }],
    structuredContent: { content: `line one of ${path}\nline two` },
  }));
  server.registerTool("screenshot", {
    description: "An image with a structured copy of its bytes",
    inputSchema: z.object({}),
    outputSchema: z.object({ png: z.string() }),
  }, () => ({
    content: [
      { type: "text", text: "the screen" },
      { type: "image", data: png, mimeType: "image/png", annotations: { priority: 1 } },
    ],
    structuredContent: { png },
  }));
  server.registerTool(
    "mixed",
    { description: "Every kind of block", inputSchema: z.object({}) },
    () => ({
      content: [
        { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
        { type: "resource", resource: { uri: "mem://a.txt", mimeType: "text/plain", text: "A" } },
        { type: "resource", resource: { uri: "mem://b.bin", blob: "AAEC" } },
        { type: "resource_link", uri: "mem://c", name: "c", mimeType: "text/plain" },
      ],
    }),
  );
  server.registerTool(
    "refuse",
    { description: "Fails with content", inputSchema: z.object({}) },
    () => ({
      isError: true,
      content: [{ type: "text", text: "no such file" }, {
        type: "image",
        data: "AAAA",
        mimeType: "image/png",
      }],
    }),
  );
  return server;
}

async function servedThroughGateway() {
  const gateway = new McpGateway({
    servers: { up: { url: "http://127.0.0.1:1/mcp" } },
    transportFactory: async () => {
      const [client, server] = InMemoryTransport.createLinkedPair();
      await upstream().connect(server);
      return client as McpTransport;
    },
  });
  const router = new ToolRouter({ gateway });
  const serving = new ToolSetServer(await router.expose({ mcpServers: ["up"] }));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await serving.connect(serverSide);
  const client = new Client({ name: "sdk-client", version: "1.0.0" });
  await client.connect(clientSide);
  return {
    client,
    router,
    async [Symbol.asyncDispose]() {
      await client.close();
      await serving.close();
      await router.close();
      await gateway.close();
    },
  };
}

Deno.test("serve forwards an output-schema tool's non-JSON text and its own structuredContent", async () => {
  await using served = await servedThroughGateway();
  const { tools } = await served.client.listTools();
  assertEquals(tools.find((tool) => tool.name === "read_text_file")?.outputSchema?.type, "object");
  // The SDK client validates structuredContent against the advertised schema: this used to fail
  // with -32600 "has an output schema but did not return structured content".
  const result = await served.client.callTool({ name: "read_text_file", arguments: { path: "a" } });
  assertEquals(result, {
    content: [{ type: "text", text: "line one of a\nline two" }],
    structuredContent: { content: "line one of a\nline two" },
  });
});

Deno.test("serve forwards images, audio, resources and links as the upstream sent them, a link readable through serve", async () => {
  await using served = await servedThroughGateway();
  const shot = await served.client.callTool({ name: "screenshot", arguments: {} });
  assertEquals(shot.content, [
    { type: "text", text: "the screen" },
    { type: "image", data: png, mimeType: "image/png", annotations: { priority: 1 } },
  ]);
  assertEquals(shot.structuredContent, { png });
  const mixed = await served.client.callTool({ name: "mixed", arguments: {} });
  assertEquals(mixed.content, [
    { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
    { type: "resource", resource: { uri: "mem://a.txt", mimeType: "text/plain", text: "A" } },
    { type: "resource", resource: { uri: "mem://b.bin", blob: "AAEC" } },
    // A link names its resource in the form that reads from the tool's own server through serve.
    { type: "resource_link", uri: "toolroute://up/mem://c", name: "c", mimeType: "text/plain" },
  ]);
});

Deno.test("serve forwards an upstream error result's blocks with isError", async () => {
  await using served = await servedThroughGateway();
  const result = await served.client.callTool({ name: "refuse", arguments: {} });
  assertEquals(result, {
    isError: true,
    content: [{ type: "text", text: "no such file" }, {
      type: "image",
      data: "AAAA",
      mimeType: "image/png",
    }],
  });
});

Deno.test("the model's text of a 300 KB image with a structured copy has no base64", async () => {
  await using served = await servedThroughGateway();
  const toolSet = await served.router.expose({ mcpServers: ["up"] });
  const result = await toolSet.call("screenshot", {});
  assertEquals(result.text, "the screen\n\n[image: image/png, 300 KB]");
  assert(result.text.length < 200);
  assertEquals(result.content[1], {
    type: "image",
    data: png,
    mimeType: "image/png",
    annotations: { priority: 1 },
  });
  assertEquals(result.structuredContent, { png });
});

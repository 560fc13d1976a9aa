import { assertEquals, assertRejects } from "@std/assert";
import { z } from "zod";
import { defineTool, ToolRouter } from "../../mod.ts";
import { McpGateway, type McpTransport } from "../../src/core/mcp/mod.ts";
import { InMemoryTransport, McpServer } from "@modelcontextprotocol/server";

/** A server named after its URL's host, with one tool, a view it names and a resource. */
async function inMemory(url: string): Promise<McpTransport> {
  const label = new URL(url).hostname.split(".")[0];
  const server = new McpServer({ name: label, version: "1.0.0" });
  server.registerTool(`${label}_tool`, {
    inputSchema: z.object({}),
    _meta: { ui: { resourceUri: `ui://${label}/view.html` } },
  }, () => ({ content: [{ type: "text", text: label }] }));
  server.registerResource("about", `about://${label}`, {}, (uri) => ({
    contents: [{ uri: uri.href, text: `I am ${label}` }],
  }));
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  return client as McpTransport;
}

function gateway(): McpGateway {
  const gateway = new McpGateway({
    servers: { docs: { url: "http://global.example/mcp" } },
    transportFactory: (config) => inMemory((config as { url: string }).url),
  });
  gateway.addUserServer("alice", "docs", { url: "http://own.example/mcp" });
  return gateway;
}

Deno.test("a tool set's upstreams: one per server id, the user's own before a global one, with the views its tools name", async () => {
  await using gw = gateway();
  const local = defineTool({ name: "local", description: "L", input: z.object({}), run: () => "" });
  const router = new ToolRouter({ gateway: gw, functions: [local] });
  const alice = await router.expose({
    mcpServers: ["docs"],
    functions: ["local"],
    userId: "alice",
  });
  // Both tiers' tools are there (the global one's name qualified or not), one upstream per id.
  const upstreams = alice.upstreams();
  assertEquals(upstreams.map(({ server, views }) => [server.id, server.source, views]), [
    ["docs", "user_mcp", ["ui://own/view.html"]],
  ]);
  const read = await upstreams[0].server.request("resources/read", { uri: "about://own" }, {
    signal: AbortSignal.timeout(10_000),
    userId: "alice",
  });
  assertEquals((read.contents as { text: string }[])[0].text, "I am own");
  assertEquals(alice.upstreamOf("local"), undefined);
  assertEquals(alice.upstreamOf("own_tool")?.source, "user_mcp");
  assertEquals(alice.upstreamOf("global_tool")?.source, "global_mcp");
  // Another user's request through alice's server is refused before it is sent.
  await assertRejects(
    () =>
      upstreams[0].server.request("resources/read", { uri: "about://own" }, {
        signal: AbortSignal.timeout(10_000),
        userId: "bob",
      }),
    Error,
    "belongs to another user",
  );
  // Without the user, only the global server is there.
  const anonymous = await router.expose({ mcpServers: ["docs"] });
  assertEquals(anonymous.upstreams().map(({ server }) => server.source), ["global_mcp"]);
});

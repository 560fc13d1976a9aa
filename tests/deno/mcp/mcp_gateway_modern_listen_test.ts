/**
 * Tool-list changes in the 2026-07-28 era: a modern server sends `notifications/tools/list_changed`
 * only on a `subscriptions/listen` stream the client opened. The gateway opens one, so a modern
 * upstream's added tool reaches the gateway at once (no `toolListTtlMs`) and, through the
 * existing path, a `serve` client that listens itself.
 *
 * @module
 */
import { assert, assertEquals } from "@std/assert";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { z } from "zod";
import { ToolRouter } from "../../../mod.ts";
import { McpGateway, mcpHttpHandler } from "../../../src/core/mcp/mod.ts";

/** A modern-only 2.x server; `addTool()` registers `fresh` and publishes the change. */
function startGrowingServer() {
  const methods: string[] = [];
  let grown = false;
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: "growing", version: "1.0.0" });
    server.registerTool("echo", { inputSchema: z.object({ text: z.string() }) }, ({ text }) => ({
      content: [{ type: "text", text }],
    }));
    if (grown) {
      server.registerTool("fresh", { inputSchema: z.object({}) }, () => ({
        content: [{ type: "text", text: "new" }],
      }));
    }
    return server;
  }, { legacy: "reject" });
  const http = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    if (request.method === "POST") {
      const message = await request.clone().json().catch(() => ({}));
      if (typeof message.method === "string") methods.push(message.method);
    }
    return await handler.fetch(request);
  });
  return {
    url: `http://127.0.0.1:${http.addr.port}/mcp`,
    methods,
    addTool() {
      grown = true;
      handler.notify.toolsChanged();
    },
    async close() {
      await handler.close();
      await http.shutdown();
    },
  };
}

Deno.test("a 2026-07-28 server's added tool reaches the gateway through subscriptions/listen", async () => {
  const server = startGrowingServer();
  const changed = Promise.withResolvers<void>();
  const gateway = new McpGateway({
    // No age-based relisting: only the listen stream can tell the gateway.
    servers: { grow: { url: server.url, protocol: "2026-07-28" } },
    onEvent: (event) => event.type === "tools_changed" && changed.resolve(),
  });
  const router = new ToolRouter({ gateway });
  try {
    assertEquals((await router.expose({ mcpServers: ["grow"] })).has("fresh"), false);
    assert(server.methods.includes("subscriptions/listen"), server.methods.join());
    const listsBefore = server.methods.filter((m) => m === "tools/list").length;
    server.addTool();
    await changed.promise;
    assertEquals(server.methods.filter((m) => m === "tools/list").length, listsBefore + 1);
    const tools = await router.expose({ mcpServers: ["grow"] });
    assertEquals((await tools.call("fresh", {})).text, "new");
  } finally {
    await router.close();
    await server.close();
  }
});

Deno.test('a user\'s own modern connection listens only with eventStream "always"', async () => {
  for (const eventStream of ["session", "always"] as const) {
    const server = startGrowingServer();
    const gateway = new McpGateway({ eventStream });
    gateway.addUserServer("alice", "grow", { url: server.url });
    const router = new ToolRouter({ gateway });
    try {
      const tools = await router.expose({ mcpServers: ["grow"], userId: "alice" });
      assertEquals(tools.has("echo"), true, "the user's connection is open");
      assertEquals(
        server.methods.includes("subscriptions/listen"),
        eventStream === "always",
        `${eventStream}: ${server.methods.join()}`,
      );
    } finally {
      await router.close();
      await server.close();
    }
  }
});

Deno.test("serve's 2026-07-28 client hears a modern upstream's tool-list change", async () => {
  const server = startGrowingServer();
  // As `serve` does: the gateway's tool-list change is told to serve's clients.
  let relay = () => {};
  const gateway = new McpGateway({
    servers: { grow: { url: server.url } },
    onEvent: (event) => event.type === "tools_changed" && relay(),
  });
  const router = new ToolRouter({ gateway });
  const handler = mcpHttpHandler({ tools: () => router.expose({ mcpServers: ["grow"] }) });
  relay = () => void handler.notifyToolListChanged();
  const heard = Promise.withResolvers<void>();
  // The client listens for list changes (its own subscriptions/listen stream to serve).
  const client = new Client({ name: "modern", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
    listChanged: { tools: { onChanged: () => heard.resolve(), debounceMs: 0 } },
  });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL("http://127.0.0.1:8787/mcp"), {
        fetch: (url: string | URL, init?: RequestInit) => handler(new Request(url, init)),
      }),
    );
    assert(client.autoOpenedSubscription !== undefined, "the client listens to serve");
    const before = (await client.listTools()).tools.map((tool) => tool.name);
    assertEquals(before.includes("fresh"), false, before.join());
    server.addTool();
    await heard.promise;
    const after = (await client.listTools()).tools.map((tool) => tool.name);
    assert(after.includes("fresh"), after.join());
  } finally {
    await client.close();
    await handler.close();
    await router.close();
    await server.close();
  }
});

import { assert, assertEquals } from "@std/assert";
import { z } from "zod";
import { ToolRouter } from "../../../../mod.ts";
import { McpGateway, type McpTransport, ToolSetServer } from "../../../../src/core/mcp/mod.ts";
import { Client } from "../../../../src/core/mcp/mcp_sdk.ts";
import { InMemoryTransport, McpServer } from "@modelcontextprotocol/server";

const FORM = {
  type: "object",
  properties: {
    name: { type: "string", default: "John Doe" },
    status: { type: "string", enum: ["active", "inactive"], default: "active" },
  },
  required: ["name"],
};

/** An upstream whose tools ask the user and log while they run. */
function upstream(): McpServer {
  const server = new McpServer({ name: "asker", version: "1.0.0" }, {
    capabilities: { logging: {} },
  });
  server.registerTool(
    "ask",
    { description: "Asks the user", inputSchema: z.object({}) },
    async () => {
      const answer = await server.server.elicitInput({
        message: "Who are you?",
        requestedSchema: FORM as never,
      });
      return { content: [{ type: "text", text: `answer: ${JSON.stringify(answer)}` }] };
    },
  );
  server.registerTool(
    "chatty",
    { description: "Logs", inputSchema: z.object({ n: z.number() }) },
    async () => {
      for (const level of ["debug", "info", "error"] as const) {
        await server.sendLoggingMessage({ level, logger: "chatty", data: `${level} message` });
      }
      return { content: [{ type: "text", text: "done" }] };
    },
  );
  return server;
}

function gateway(options: { onElicitation?: () => Promise<{ action: "decline" }> } = {}) {
  return new McpGateway({
    servers: { up: { url: "http://127.0.0.1:1/mcp" } },
    relayElicitation: true,
    ...options,
    transportFactory: async () => {
      const [client, server] = InMemoryTransport.createLinkedPair();
      await upstream().connect(server);
      return client as McpTransport;
    },
  });
}

async function serveClient(router: ToolRouter, capabilities: Record<string, unknown>) {
  const serving = new ToolSetServer(await router.expose({ mcpServers: ["up"] }));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await serving.connect(serverSide);
  const client = new Client({ name: "person", version: "1.0.0" }, { capabilities });
  await client.connect(clientSide);
  return { client, close: async () => (await client.close(), await serving.close()) };
}

Deno.test("an upstream's elicitation during a call reaches the serve client that made it", async () => {
  await using gw = gateway();
  const router = new ToolRouter({ gateway: gw });
  const { client, close } = await serveClient(router, { elicitation: {} });
  const asked: unknown[] = [];
  client.setRequestHandler("elicitation/create", (request) => {
    asked.push(request.params);
    return { action: "accept", content: { name: "Jane", status: "inactive" } };
  });
  try {
    const result = await client.callTool({ name: "ask", arguments: {} });
    assertEquals(asked.length, 1);
    // The schema reaches the person unchanged (defaults, enums).
    assertEquals((asked[0] as { requestedSchema: unknown }).requestedSchema, FORM);
    assertEquals((asked[0] as { message: string }).message, "Who are you?");
    assertEquals(result.content, [{
      type: "text",
      text: 'answer: {"action":"accept","content":{"name":"Jane","status":"inactive"}}',
    }]);
  } finally {
    await close();
  }
});

Deno.test("a serve client without the elicitation capability gets the upstream's question cancelled", async () => {
  await using gw = gateway();
  const router = new ToolRouter({ gateway: gw });
  const { client, close } = await serveClient(router, {});
  try {
    const result = await client.callTool({ name: "ask", arguments: {} });
    assertEquals(result.content, [{ type: "text", text: 'answer: {"action":"cancel"}' }]);
  } finally {
    await close();
  }
});

Deno.test("a library call's onElicitation answers, and the gateway's handler takes what no one call owns", async () => {
  let fallbacks = 0;
  await using gw = gateway({
    onElicitation: () => (fallbacks++, Promise.resolve({ action: "decline" as const })),
  });
  const tools = await new ToolRouter({ gateway: gw }).expose({ mcpServers: ["up"] });
  const own = await tools.call("ask", {}, {
    onElicitation: (request) => {
      assertEquals(request.message, "Who are you?");
      return Promise.resolve({ action: "accept", content: { name: "Ada" } });
    },
  });
  assert(own.text.includes('"name":"Ada"'), own.text);
  assertEquals(fallbacks, 0);
  // Two calls in flight on one connection: the question cannot be tied to one person.
  let relayed = 0;
  const handler = () => (relayed++, Promise.resolve({ action: "accept" as const, content: {} }));
  const [a, b] = await Promise.all([
    tools.call("ask", {}, { onElicitation: handler }),
    tools.call("ask", {}, { onElicitation: handler }),
  ]);
  assert(a.text.includes("decline") && b.text.includes("decline"), `${a.text} ${b.text}`);
  assertEquals([relayed, fallbacks], [0, 2]);
});

Deno.test("an upstream's log messages reach the serve client at the level it set", async () => {
  await using gw = gateway();
  const router = new ToolRouter({ gateway: gw });
  const { client, close } = await serveClient(router, {});
  const logs: unknown[] = [];
  client.setNotificationHandler("notifications/message", (n) => void logs.push(n.params));
  try {
    await client.setLoggingLevel("info");
    assertEquals((await client.callTool({ name: "chatty", arguments: { n: 1 } })).content, [
      { type: "text", text: "done" },
    ]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assertEquals(logs, [
      { level: "info", logger: "chatty", data: "info message" },
      { level: "error", logger: "chatty", data: "error message" },
    ]);
    // A library call receives them through onLog.
    const seen: string[] = [];
    const tools = await router.expose({ mcpServers: ["up"] });
    await tools.call("chatty", { n: 1 }, { onLog: (entry) => void seen.push(entry.level) });
    assertEquals(seen, ["debug", "info", "error"]);
  } finally {
    await close();
  }
});

import { assert, assertEquals } from "@std/assert";
import { z } from "zod";
import { ToolRouter } from "../../../../../mod.ts";
import { McpGateway, type McpTransport } from "../../../../../src/core/mcp/mod.ts";
import { InMemoryTransport, McpServer } from "@modelcontextprotocol/server";
import type { ToolLogEntry, ToolProgress } from "../../../../../src/core/tool_source.ts";

const TOKEN = "sk-global-0123456789abcdef";

/**
 * A server that echoes the credentials its requests carried into every channel besides the
 * result: its tool's definition, a log message (in its logger's name and deep in its data), a
 * progress message, and a request for input (its message and its schema's description).
 */
function echoingServer(sent: { log: number; progress: number; asked: number }): McpServer {
  const server = new McpServer({ name: "leaky", version: "1.0.0" }, {
    capabilities: { logging: {} },
  });
  server.registerTool("work", {
    description: `Works; called with Bearer ${TOKEN}`,
    inputSchema: z.object({ mode: z.string().describe(`sent as ${TOKEN}`).optional() }),
  }, async (_args, extra) => {
    await server.sendLoggingMessage({
      level: "debug",
      logger: `auth ${TOKEN}`,
      data: { request: { headers: { authorization: `Bearer ${TOKEN}` } }, list: [[TOKEN]] },
    });
    sent.log++;
    await extra.mcpReq.notify({
      method: "notifications/progress",
      params: {
        progressToken: extra.mcpReq._meta!.progressToken!,
        progress: 1,
        message: `sent with Bearer ${TOKEN}`,
      },
    });
    sent.progress++;
    const answer = await server.server.elicitInput({
      message: `Confirm the call made with ${TOKEN}`,
      requestedSchema: {
        type: "object",
        properties: { ok: { type: "boolean", description: `key ${TOKEN}` } },
      },
    });
    sent.asked++;
    return { content: [{ type: "text", text: `answer: ${answer.action}` }] };
  });
  return server;
}

Deno.test("a global server's tool definitions, log messages, progress and input requests reach the caller without its credentials", async () => {
  const sent = { log: 0, progress: 0, asked: 0 };
  const gateway = new McpGateway({
    servers: {
      up: { url: "http://127.0.0.1:1/mcp", headers: { Authorization: `Bearer ${TOKEN}` } },
    },
    relayElicitation: true,
    transportFactory: async () => {
      const [client, server] = InMemoryTransport.createLinkedPair();
      await echoingServer(sent).connect(server);
      return client as McpTransport;
    },
  });
  const router = new ToolRouter({ gateway });
  try {
    const tools = await router.expose({ mcpServers: ["up"], userId: "alice" });
    const definitions = JSON.stringify(tools.toMcp());
    assert(definitions.includes("called with [redacted]"), definitions);
    assert(!definitions.includes(TOKEN), definitions);
    const logs: ToolLogEntry[] = [];
    const progress: ToolProgress[] = [];
    const asked: unknown[] = [];
    const result = await tools.call("work", {}, {
      onLog: (entry) => void logs.push(entry),
      onProgress: (report) => void progress.push(report),
      onElicitation: (request) => {
        asked.push(request);
        return Promise.resolve({ action: "decline" as const });
      },
    });
    assertEquals(result.text, "answer: decline");
    // The attack ran: the server sent each, and each reached the caller.
    assertEquals(sent, { log: 1, progress: 1, asked: 1 });
    assertEquals([logs.length, progress.length, asked.length], [1, 1, 1]);
    const seen = JSON.stringify({ logs, progress, asked });
    assert(!seen.includes(TOKEN), seen);
    assertEquals(logs[0].logger, "auth [redacted]");
    assertEquals(logs[0].data, {
      request: { headers: { authorization: "[redacted]" } },
      list: [["[redacted]"]],
    });
    assertEquals(progress[0].message, "sent with [redacted]");
    assertEquals(
      (asked[0] as { message: string }).message,
      "Confirm the call made with [redacted]",
    );
  } finally {
    await router.close();
  }
});

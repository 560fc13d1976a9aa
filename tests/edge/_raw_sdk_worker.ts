/**
 * The edge example's three sources written on the raw MCP SDK 2.x and zod, without toolroute: a
 * function tool, a second local tool, and a remote server's tools forwarded through the SDK
 * `Client`, served statelessly by `createMcpHandler`. What the SDK and zod alone weigh in a worker
 * that both reaches remote servers and serves MCP:
 * `DENO_CONDITIONS=module deno bundle --config tests/edge/deno.json --platform=browser --minify --output=/tmp/raw.js tests/edge/_raw_sdk_worker.ts`,
 * then `gzip -c /tmp/raw.js | wc -c`.
 *
 * @module
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import * as z from "zod";

let client: Client | undefined;

export default {
  /** Answers one request. */
  async fetch(request: Request, env: { REMOTE_MCP_URL: string }): Promise<Response> {
    if (client === undefined) {
      client = new Client({ name: "raw-edge", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(env.REMOTE_MCP_URL)));
    }
    const remote = client;
    const { tools } = await remote.listTools();
    const handler = createMcpHandler(() => {
      const server = new McpServer({ name: "raw-edge", version: "1.0.0" });
      server.registerTool(
        "add",
        { inputSchema: z.object({ a: z.number(), b: z.number() }) },
        ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
      );
      server.registerTool(
        "units__celsius_to_fahrenheit",
        { inputSchema: z.object({ celsius: z.number() }) },
        ({ celsius }) => ({ content: [{ type: "text", text: String(celsius * 9 / 5 + 32) }] }),
      );
      for (const tool of tools) {
        server.registerTool(
          tool.name,
          { description: tool.description, inputSchema: z.looseObject({}) },
          async (args) =>
            await remote.callTool({ name: tool.name, arguments: args }) as {
              content: { type: "text"; text: string }[];
            },
        );
      }
      return server;
    });
    return await handler.fetch(request);
  },
};

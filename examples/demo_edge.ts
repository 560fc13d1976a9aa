/**
 * Demo part: the edge worker's MCP endpoint (`examples/edge_worker.ts`) answering MCP requests.
 * The same code runs in workerd (`deno task bundle:edge`, proved by `tests/edge/workerd_test.ts`);
 * here it runs in-process, with its remote MCP server, another toolroute endpoint, on 127.0.0.1.
 *
 * Needs `allow-net` for 127.0.0.1 only.
 *
 * @module
 */

import { defineTool, ToolRouter } from "@toolroute/toolroute";
import { mcpHttpHandler } from "@toolroute/toolroute/mcp";
import * as z from "zod";
import { createEdgeEndpoint } from "./edge_worker.ts";

const forecast = defineTool({
  name: "forecast",
  description: "Tomorrow's weather for a city",
  input: z.object({ city: z.string() }),
  run: ({ city }) => ({ city, celsius: 3, sky: "snow" }),
});

/**
 * Runs the edge part of the demo: lists the worker's tools and calls one of each source, a tool
 * it does not expose, and one with invalid arguments.
 *
 * @param print Receives each line of output.
 */
export async function demoEdge(print: (line: string) => void): Promise<void> {
  const remoteRouter = new ToolRouter({ functions: [forecast] });
  const remote = mcpHttpHandler({
    tools: await remoteRouter.expose({ functions: ["forecast"] }),
    stateless: true,
  });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, remote);
  const endpoint = createEdgeEndpoint({
    REMOTE_MCP_URL: `http://127.0.0.1:${server.addr.port}/mcp`,
  });
  let id = 0;
  const rpc = async (method: string, params: Record<string, unknown>) => {
    const response = await endpoint(
      new Request("http://127.0.0.1/mcp", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2025-06-18",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }),
      }),
    );
    return messageOf(await response.text());
  };
  try {
    print("Edge worker (stateless MCP endpoint, as deployed on workerd), called in-process:");
    const { tools } = (await rpc("tools/list", {})).result as { tools: { name: string }[] };
    print(`  tools/list → ${tools.map((tool) => tool.name).join(", ")}`);
    for (
      const [name, args] of [
        ["add", { a: 2, b: 3 }],
        ["units_celsius_to_fahrenheit", { celsius: 100 }],
        ["forecast", { city: "Oslo" }],
        ["reset_database", {}],
        ["add", { a: "two", b: 3 }],
      ] as const
    ) {
      const { result } = await rpc("tools/call", { name, arguments: args });
      const { content, isError } = result as { content: { text: string }[]; isError?: boolean };
      const text = content.map((part) => part.text).join(" ");
      print(`  ${name}(${JSON.stringify(args)}) → ${isError ? "error: " : ""}${text}`);
    }
  } finally {
    await endpoint.close();
    await remote.close();
    await remoteRouter.close();
    await server.shutdown();
  }
}

/** The JSON-RPC message of a JSON or a one-event SSE response body. */
function messageOf(body: string): { result?: unknown; error?: unknown } {
  const data = body.trimStart().startsWith("{")
    ? body
    : body.split("\n").filter((line) => line.startsWith("data:")).map((line) => line.slice(5))
      .join("\n");
  return JSON.parse(data);
}

if (import.meta.main) await demoEdge(console.log);

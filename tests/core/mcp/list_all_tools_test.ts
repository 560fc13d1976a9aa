import { assertEquals } from "@std/assert";
import { listAllTools, toolPagesOf } from "../../../src/core/mcp/list_all_tools.ts";
import { Client, Server } from "../../../src/core/mcp/mcp_sdk.ts";
import { InMemoryTransport } from "@modelcontextprotocol/server";

async function pagedServer(
  pages: number,
  loop = false,
): Promise<{ client: Client; close: () => Promise<void>; requests: () => number }> {
  const server = new Server({ name: "paged", version: "1" }, { capabilities: { tools: {} } });
  let requests = 0;
  server.setRequestHandler("tools/list", (request) => {
    requests++;
    const page = Number(request.params?.cursor ?? "0");
    const next = loop ? "0" : page + 1 < pages ? String(page + 1) : undefined;
    return {
      tools: [{ name: `tool_${page}`, inputSchema: { type: "object" as const } }],
      ...(next === undefined ? {} : { nextCursor: next }),
    };
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  const client = new Client({ name: "c", version: "1" });
  await client.connect(a);
  return {
    client,
    requests: () => requests,
    close: async () => (await client.close(), await server.close()),
  };
}

Deno.test("listAllTools() follows nextCursor through every page", async () => {
  const { client, close } = await pagedServer(3);
  try {
    assertEquals((await listAllTools(toolPagesOf(client))).map((t) => t.name), [
      "tool_0",
      "tool_1",
      "tool_2",
    ]);
  } finally {
    await close();
  }
});

Deno.test("listAllTools() stops at a repeated cursor", async () => {
  const { client, close, requests } = await pagedServer(1, true);
  try {
    assertEquals((await listAllTools(toolPagesOf(client))).length, 2);
    assertEquals(requests(), 2);
  } finally {
    await close();
  }
});

import { assertEquals, assertRejects } from "@std/assert";
import { isTooDeepTool, listAllTools } from "../../../src/core/mcp/list_all_tools.ts";
import { MAX_REMOTE_DEPTH, nestedDeeperThan } from "../../../src/core/mcp/remote_depth.ts";
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
    assertEquals((await listAllTools(client)).map((t) => t.name), [
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
    assertEquals((await listAllTools(client)).length, 2);
    assertEquals(requests(), 2);
  } finally {
    await close();
  }
});

/** A client of a server whose one page lists `tools` as they are. */
async function listing(tools: unknown[]): Promise<{ client: Client; close: () => Promise<void> }> {
  const server = new Server({ name: "deep", version: "1" }, { capabilities: { tools: {} } });
  server.setRequestHandler("tools/list", () => ({ tools: tools as never }));
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  const client = new Client({ name: "c", version: "1" });
  await client.connect(a);
  return { client, close: async () => (await client.close(), await server.close()) };
}

/** A value nesting `levels` objects below itself. */
function deep(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let i = 0; i < levels; i++) value = { d: value };
  return value;
}

Deno.test("nestedDeeperThan() counts levels of objects and arrays with no recursion", () => {
  assertEquals(nestedDeeperThan(deep(3), 3), false);
  assertEquals(nestedDeeperThan(deep(4), 3), true);
  assertEquals(nestedDeeperThan([[["x"]]], 2), false);
  assertEquals(nestedDeeperThan([[[[]]]], 2), true);
  assertEquals(nestedDeeperThan("text", 0), false);
  // Far deeper than any call stack: answered, not overflowed.
  assertEquals(nestedDeeperThan(deep(200_000), MAX_REMOTE_DEPTH), true);
});

Deno.test("listAllTools() puts a name-only stand-in for a tool nested too deep, lists the others as they are", async () => {
  const schema = (levels: number) => ({ type: "object", properties: { q: deep(levels) } });
  const { client, close } = await listing([
    { name: "fine", inputSchema: schema(MAX_REMOTE_DEPTH - 3) },
    { name: "abyss", description: "hidden", inputSchema: schema(MAX_REMOTE_DEPTH) },
  ]);
  try {
    const [fine, abyss] = await listAllTools(client);
    assertEquals([fine.name, isTooDeepTool(fine)], ["fine", false]);
    assertEquals(nestedDeeperThan(fine.inputSchema, MAX_REMOTE_DEPTH - 2), true, "kept whole");
    assertEquals(abyss, {
      name: "abyss",
      inputSchema: { type: "object" },
      _meta: { "toolroute/too_deep": true },
    });
    assertEquals(isTooDeepTool(abyss), true);
  } finally {
    await close();
  }
});

Deno.test("listAllTools() still refuses a page with a tool that is not one", async () => {
  const { client, close } = await listing([{ name: 7, inputSchema: { type: "object" } }]);
  try {
    await assertRejects(() => listAllTools(client));
  } finally {
    await close();
  }
});

import { assert, assertEquals, assertThrows } from "@std/assert";
import { SharedToolDefinitions } from "../../../../../src/core/mcp/gateway/connection/shared_tool_definitions.ts";
import type { McpTool } from "../../../../../src/core/mcp/mcp_sdk.ts";

const listed = (description: string): McpTool[] =>
  JSON.parse(JSON.stringify([
    {
      name: "search",
      description,
      inputSchema: { type: "object", properties: { q: { type: "string" } } },
    },
    { name: "echo", inputSchema: { type: "object" } },
  ]));

Deno.test("SharedToolDefinitions gives every list the same object for an equal definition, and apart ones apart", () => {
  const shared = new SharedToolDefinitions();
  const alice = shared.share(listed("Searches"));
  const bob = shared.share(listed("Searches"));
  const carol = shared.share(listed("Searches, but differently"));
  assert(alice[0] === bob[0] && alice[1] === bob[1]);
  assert(carol[0] !== alice[0]);
  assert(carol[1] === alice[1]);
  assertEquals(carol[0].description, "Searches, but differently");
  assertEquals(alice, listed("Searches"));
});

Deno.test("SharedToolDefinitions freezes what it shares, so one user's copy cannot change another's", () => {
  const shared = new SharedToolDefinitions();
  const [tool] = shared.share(listed("Searches"));
  assertThrows(() => {
    (tool as { description?: string }).description = "changed";
  }, TypeError);
  assertThrows(() => {
    (tool.inputSchema.properties as Record<string, unknown>).q = {};
  }, TypeError);
  assertEquals(shared.share(listed("Searches"))[0].description, "Searches");
});

Deno.test("SharedToolDefinitions forgets definitions no connection holds any more, as new ones come", () => {
  const dead = new Set<McpTool>();
  const shared = new SharedToolDefinitions({
    hold: (tool) => ({ deref: () => (dead.has(tool) ? undefined : tool) }),
  });
  const first = shared.share(listed("First"));
  assertEquals(shared.size, 2);
  // The first list's search tool is collected; an equal definition then gets a new object.
  dead.add(first[0]);
  const again = shared.share(listed("First"));
  assert(again[0] !== first[0] && again[1] === first[1]);
  for (const tool of [...again, first[1]]) dead.add(tool);
  for (let i = 0; i < 300; i++) shared.share(listed(`Later ${i}`).slice(0, 1));
  // 300 new entries swept the dead ones: only the 300 live ones (and none of "First") remain.
  assertEquals(shared.size, 300);
});

import { assertEquals } from "@std/assert";
import { z } from "zod";
import { defineMcpService, defineTool, ToolRouter } from "../../mod.ts";

const b = defineTool({
  name: "b_tool",
  description: "B",
  input: z.object({ q: z.string() }),
  run: () => "b",
});
const a = defineTool({ name: "a_tool", description: "A", input: z.object({}), run: () => "a" });

Deno.test("ToolSet lists tools sorted by name in a stable order", async () => {
  const router = new ToolRouter({ functions: [b, a] });
  const first = await router.expose({ functions: ["b_tool", "a_tool"] });
  const second = await router.expose({ functions: ["a_tool", "b_tool"] });
  assertEquals(first.names, ["a_tool", "b_tool"]);
  assertEquals(first.tools, second.tools);
});

Deno.test("ToolSet gives the OpenAI, Anthropic and MCP formats", async () => {
  const tools = await new ToolRouter({ functions: [b] }).expose({ functions: ["b_tool"] });
  const parameters = {
    type: "object",
    properties: { q: { type: "string" } },
    required: ["q"],
    additionalProperties: false,
  };
  assertEquals(tools.tools, [{
    type: "function",
    function: { name: "b_tool", description: "B", parameters, strict: true },
  }]);
  assertEquals(tools.toAnthropic(), [{
    name: "b_tool",
    description: "B",
    input_schema: parameters,
  }]);
  assertEquals(tools.toMcp(), [{ name: "b_tool", description: "B", inputSchema: parameters }]);
});

Deno.test("ToolSet answers has() and sourceOf() only for exposed names", async () => {
  const service = defineMcpService({
    name: "s",
    tools: { t: { description: "d", input: z.object({}), run: () => "" } },
  });
  const tools = await new ToolRouter({ functions: [a, b], mcpServices: [service] }).expose({
    functions: ["a_tool"],
    mcpServices: ["s"],
  });
  assertEquals([tools.has("a_tool"), tools.has("b_tool"), tools.has("s_t")], [true, false, true]);
  assertEquals([tools.sourceOf("a_tool"), tools.sourceOf("s_t"), tools.sourceOf("b_tool")], [
    "function",
    "local_mcp",
    undefined,
  ]);
});

Deno.test("ToolSet.invoke() returns the text of call()", async () => {
  const tools = await new ToolRouter({ functions: [a] }).expose({
    functions: ["a_tool"],
    userId: "u",
  });
  assertEquals(tools.userId, "u");
  assertEquals(await tools.invoke("a_tool", "{}"), (await tools.call("a_tool", "{}")).text);
  assertEquals(
    await tools.invoke("b_tool", "{}"),
    'Unknown tool "b_tool". Available tools: a_tool',
  );
});

Deno.test("ToolSet says so when a request has no tools at all", async () => {
  const tools = await new ToolRouter({ functions: [a] }).expose({});
  assertEquals(
    await tools.invoke("a_tool"),
    'Unknown tool "a_tool". No tools are available in this request',
  );
});

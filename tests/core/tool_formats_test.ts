import { assertEquals } from "@std/assert";
import { toAnthropicTool, toMcpTool, toOpenAITool } from "../../src/core/tool_formats.ts";
import type { RoutedTool } from "../../src/core/unstable_source.ts";

const tool: RoutedTool = {
  name: "t",
  description: "d",
  inputSchema: { type: "object" },
  outputSchema: { type: "object", properties: { n: { type: "number" } } },
  annotations: { readOnlyHint: true },
  source: "global_mcp",
  origin: "srv/t",
  execute: () => "",
};

Deno.test("toOpenAITool(), toAnthropicTool() and toMcpTool() describe one tool in three formats", () => {
  assertEquals(toOpenAITool(tool), {
    type: "function",
    function: { name: "t", description: "d", parameters: { type: "object" } },
  });
  assertEquals(toAnthropicTool(tool), {
    name: "t",
    description: "d",
    input_schema: { type: "object" },
  });
  assertEquals(toMcpTool(tool), {
    name: "t",
    description: "d",
    inputSchema: { type: "object" },
    outputSchema: tool.outputSchema,
    annotations: { readOnlyHint: true },
  });
});

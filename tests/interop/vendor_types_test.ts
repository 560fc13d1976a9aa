/**
 * The converters' output types against the vendors' own SDK types: a host passes what
 * `toAnthropic()`, `toAnthropicToolResult()`, `tools` and `toOpenAIToolOutput()` return straight
 * into `@anthropic-ai/sdk` and `openai`, so each must be assignable to the SDK's parameter type.
 * The assignments below are the test: `deno check` (and `deno test`, which type-checks first) fails
 * when one is not. The runtime assertions check that the values are what the types promise.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";
import { assertEquals } from "@std/assert";
import { z } from "zod";
import {
  defineTool,
  toAnthropicToolResult,
  type ToolCallResult,
  ToolRouter,
  toOpenAIToolOutput,
} from "../../mod.ts";

const chart = defineTool({
  name: "chart",
  description: "Draws a chart of a series.",
  input: z.object({ series: z.array(z.number()) }),
  run: () => "drawn",
});

const result: ToolCallResult = {
  text: "[image: image/png, 8 B]",
  isError: false,
  tool: "chart",
  content: [
    { type: "text", text: "the chart" },
    { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
    {
      type: "resource",
      resource: { uri: "file:///r.pdf", blob: "JVBERi0=", mimeType: "application/pdf" },
    },
  ],
};

Deno.test("toAnthropic() tools and toAnthropicToolResult() blocks are the Anthropic SDK's parameter types", async () => {
  const tools = await new ToolRouter({ functions: [chart] }).expose({ functions: ["chart"] });
  const anthropicTools: Anthropic.Messages.ToolUnion[] = tools.toAnthropic();
  const native: Anthropic.Messages.ToolUnion[] = tools.toAnthropic({ native: true });
  const toolResult: Anthropic.Messages.ToolResultBlockParam = toAnthropicToolResult(
    result,
    "toolu_1",
  );
  assertEquals(anthropicTools.map((tool) => "name" in tool && tool.name), ["chart"]);
  assertEquals(native.length >= anthropicTools.length, true);
  assertEquals(
    (toolResult.content as Anthropic.Messages.ImageBlockParam[])[1].source,
    { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" },
  );
});

Deno.test("tools (OpenAI format) and toOpenAIToolOutput() items are the OpenAI SDK's parameter types", async () => {
  const tools = await new ToolRouter({ functions: [chart] }).expose({ functions: ["chart"] });
  const openaiTools: OpenAI.Chat.Completions.ChatCompletionTool[] = tools.tools;
  const output: OpenAI.Responses.ResponseInputItem.FunctionCallOutput = toOpenAIToolOutput(
    result,
    "call_1",
  );
  assertEquals(openaiTools.map((tool) => tool.type === "function" && tool.function.name), [
    "chart",
  ]);
  assertEquals(output.call_id, "call_1");
  assertEquals(Array.isArray(output.output) ? output.output.length : 0, 3);
});

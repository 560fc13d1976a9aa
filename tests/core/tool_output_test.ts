import { assertEquals, assertThrows } from "@std/assert";
import { defineTool, isToolOutput, ToolError, toolOutput, ToolRouter } from "../../mod.ts";
import { toResultText, truncateMiddle } from "../../src/core/tool_output.ts";
import { z } from "zod";

Deno.test("toolOutput() marks a value so isToolOutput() recognises it, plain objects are not", () => {
  const output = toolOutput({ content: [{ type: "text", text: "hi" }], isError: false });
  assertEquals(isToolOutput(output), true);
  assertEquals(isToolOutput({ content: [] }), false);
  assertEquals(isToolOutput(null), false);
  assertEquals(output, { content: [{ type: "text", text: "hi" }] });
});

Deno.test("toolOutput() refuses a value without a content array", () => {
  assertThrows(() => toolOutput({} as never), TypeError, '"content" array');
});

function router(
  run: () => unknown,
  options: { maxResultChars?: number; maxMediaBytes?: number } = {},
) {
  const tool = defineTool({ name: "t", description: "A tool", input: z.object({}), run });
  return new ToolRouter({ functions: [tool], ...options });
}

Deno.test("ToolSet#call() passes content blocks and structuredContent through; text has no media", async () => {
  const png = btoa("p".repeat(300 * 1024));
  const tools = await router(() =>
    toolOutput({
      content: [{ type: "image", data: png, mimeType: "image/png" }],
      structuredContent: { png },
    })
  ).expose({ functions: ["t"] });
  const result = await tools.call("t", {});
  assertEquals(result.text, "[image: image/png, 300 KB]");
  assertEquals(result.content, [{ type: "image", data: png, mimeType: "image/png" }]);
  assertEquals(result.structuredContent, { png });
  assertEquals(result.isError, false);
});

Deno.test("ToolSet#call() turns an output with isError into tool_error, keeping its content", async () => {
  const tools = await router(() =>
    toolOutput({ content: [{ type: "text", text: "disk full" }], isError: true })
  ).expose({ functions: ["t"] });
  const result = await tools.call("t", {});
  assertEquals([result.isError, result.code, result.text], [true, "tool_error", "disk full"]);
  assertEquals(result.content, [{ type: "text", text: "disk full" }]);
  const empty = await (await router(() => toolOutput({ content: [], isError: true })).expose({
    functions: ["t"],
  })).call("t", {});
  assertEquals(empty.text, 'Tool "t" reported an error without a message');
  assertEquals(empty.content, [{ type: "text", text: empty.text }]);
});

Deno.test("ToolSet#call() bounds content: text by maxResultChars, media by maxMediaBytes", async () => {
  const tools = await router(() =>
    toolOutput({
      content: [
        { type: "text", text: "z".repeat(1000) },
        { type: "audio", data: btoa("a".repeat(2000)), mimeType: "audio/wav" },
      ],
    }), { maxResultChars: 400, maxMediaBytes: 1000 }).expose({ functions: ["t"] });
  const result = await tools.call("t", {});
  // The text blocks (the left-out audio's note among them) are cut into one, the whole kept.
  assertEquals(result.content.map((block) => block.type), ["text"]);
  assertEquals((result.content[0] as { text: string }).text, result.text);
  assertEquals(result.text.includes("characters cut"), true);
  assertEquals(result.text.length <= 400, true);
  const whole = await tools.call("read_result", { handle: result.resultHandle });
  assertEquals(
    whole.text,
    "z".repeat(1000) +
      "\n\n[audio: audio/wav, 2 KB, left out: media over the 1000 B limit of a result]",
  );
});

Deno.test("ToolSet#call() gives plain results and errors one text block equal to the text", async () => {
  const tools = await router(() => ({ a: 1 })).expose({ functions: ["t"] });
  assertEquals((await tools.call("t", {})).content, [{ type: "text", text: '{"a":1}' }]);
  const missing = await tools.call("nope", {});
  assertEquals(missing.content, [{ type: "text", text: missing.text }]);
});

Deno.test("toResultText() keeps strings, encodes the rest compactly, and maps undefined to empty", () => {
  assertEquals(toResultText("x"), "x");
  assertEquals(toResultText({ a: 1, b: [2] }), '{"a":1,"b":[2]}');
  assertEquals(toResultText(undefined), "");
  assertEquals(toResultText(false), "false");
});

Deno.test("toResultText() encodes bigints as strings", () => {
  assertEquals(toResultText({ n: 10n }), '{"n":"10"}');
});

Deno.test("toResultText() throws tool_error for cyclic values", () => {
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  assertEquals(assertThrows(() => toResultText(cyclic), ToolError).code, "tool_error");
});

Deno.test("truncateMiddle() keeps head and tail with a marker saying how much was cut", () => {
  assertEquals(truncateMiddle("abcdefghij", 4), "ab\n[... 6 characters truncated ...]\nij");
  assertEquals(truncateMiddle("abc", 3), "abc");
  assertEquals(truncateMiddle("abcdef", 1), "a\n[... 5 characters truncated ...]\n");
});

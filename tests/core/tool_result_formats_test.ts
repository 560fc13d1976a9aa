import { assertEquals } from "@std/assert";
import { toAnthropicToolResult, type ToolCallResult, toOpenAIToolOutput } from "../../mod.ts";

const pdf = btoa("%PDF-1.7");
const result: ToolCallResult = {
  text: "ignored here",
  isError: false,
  tool: "t",
  content: [
    { type: "text", text: "hello" },
    { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
    { type: "image", data: "AAAA", mimeType: "image/tiff" },
    { type: "audio", data: "AAAA", mimeType: "audio/wav" },
    {
      type: "resource",
      resource: { uri: "file:///docs/a.pdf", mimeType: "application/pdf", blob: pdf },
    },
    { type: "resource", resource: { uri: "file:///a.txt", text: "inline" } },
    { type: "resource_link", uri: "file:///b", name: "b" },
  ],
};

Deno.test("toAnthropicToolResult() keeps text, images and PDFs, and describes the rest", () => {
  assertEquals(toAnthropicToolResult(result, "toolu_1"), {
    type: "tool_result",
    tool_use_id: "toolu_1",
    content: [
      { type: "text", text: "hello" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
      { type: "text", text: "[image: image/tiff, 3 B]" },
      { type: "text", text: "[audio: audio/wav, 3 B]" },
      { type: "document", source: { type: "base64", media_type: "application/pdf", data: pdf } },
      { type: "text", text: "inline" },
      { type: "text", text: "[resource link: file:///b (b)]" },
    ],
  });
});

Deno.test("toAnthropicToolResult() marks errors and falls back to the text without content", () => {
  const failed = { text: "boom", isError: true, code: "tool_error", tool: "t" } as ToolCallResult;
  assertEquals(toAnthropicToolResult(failed, "x"), {
    type: "tool_result",
    tool_use_id: "x",
    content: [{ type: "text", text: "boom" }],
    is_error: true,
  });
});

Deno.test("toOpenAIToolOutput() keeps text, images as data URLs and PDFs as files", () => {
  assertEquals(toOpenAIToolOutput(result, "call_1"), {
    type: "function_call_output",
    call_id: "call_1",
    output: [
      { type: "input_text", text: "hello" },
      { type: "input_image", image_url: "data:image/png;base64,iVBORw0KGgo=" },
      { type: "input_text", text: "[image: image/tiff, 3 B]" },
      { type: "input_text", text: "[audio: audio/wav, 3 B]" },
      { type: "input_file", filename: "a.pdf", file_data: `data:application/pdf;base64,${pdf}` },
      { type: "input_text", text: "inline" },
      { type: "input_text", text: "[resource link: file:///b (b)]" },
    ],
  });
});

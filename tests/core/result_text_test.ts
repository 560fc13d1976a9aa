import { assertEquals, assertThrows } from "@std/assert";
import { toResultText } from "../../src/core/result_text.ts";
import { ToolError } from "../../mod.ts";
import { truncateMiddle } from "../../src/core/result_text.ts";

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

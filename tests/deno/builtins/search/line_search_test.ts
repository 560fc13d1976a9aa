import { assertEquals, assertThrows } from "@std/assert";
import {
  compilePattern,
  cutLine,
  searchLines,
} from "../../../../src/deno/builtins/search/line_search.ts";
import { ToolError } from "../../../../src/core/tool_error.ts";

const search = (text: string, pattern: string, ignoreCase: boolean, limit: number) =>
  searchLines(text, compilePattern(pattern, ignoreCase), { limit });

Deno.test("searchLines() numbers lines from 1, matches each line once and never across lines", async () => {
  const text = "a foo\nbar\r\nfoo foo\n\nlast foo";
  const found = await search(text, "foo", false, 10);
  assertEquals(found, [
    { line: 1, text: "a foo" },
    { line: 3, text: "foo foo" },
    { line: 5, text: "last foo" },
  ]);
  assertEquals(await search(text, "^$", false, 10), [{ line: 4, text: "" }]);
  assertEquals(await search(text, "bar$", false, 10), [{ line: 2, text: "bar" }]);
  assertEquals(await search(text, "foo\\nbar", false, 10), []);
  assertEquals((await search(text, "FOO", true, 2)).map((m) => m.line), [1, 3]);
  assertEquals((await search("\nx", "^", false, 5)).map((m) => m.line), [1, 2]);
  assertEquals(
    (await search("x\n", "^", false, 5)).map((m) => m.line),
    [1],
    "no line after the end",
  );
  assertEquals((await search(text, "(?i)^FOO|LAST", false, 5)).map((m) => m.line), [3, 5]);
});

Deno.test("compilePattern() finds the literal of a plain pattern, and names a bad expression", () => {
  assertEquals(new TextDecoder().decode(compilePattern("a\\.b-c", false).literal), "a.b-c");
  assertEquals(compilePattern("a.b", false).literal, undefined);
  assertEquals(compilePattern("abc", true).literal, undefined, "not when ignoring case");
  const error = assertThrows(() => compilePattern("(", false), ToolError);
  assertEquals(error.code, "invalid_arguments");
  assertEquals(
    error.message,
    '"pattern" is not a valid regular expression: missing closing ) in "("; escape special characters such as ( [ { . * + ? with a backslash to match them literally',
  );
});

Deno.test("cutLine() keeps a short line and cuts a long one around the match with a marker", () => {
  assertEquals(cutLine("short", 0), "short");
  const start = cutLine(`needle${"x".repeat(1000)}`, 0);
  assertEquals(start, `needle${"x".repeat(494)}… [line cut: 1006 characters]`);
  const end = cutLine(`${"x".repeat(1000)}needle`, 1000);
  assertEquals(end, `…${"x".repeat(494)}needle [line cut: 1006 characters]`);
});

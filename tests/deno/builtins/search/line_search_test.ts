import { assert, assertEquals, assertStringIncludes, assertThrows } from "@std/assert";
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

Deno.test("searchLines() runs a backtracking expression in linear time, pausing between slices", async () => {
  let pauses = 0;
  const pause = () => {
    pauses++;
    return Promise.resolve();
  };
  const text = `${"a".repeat(40)}\n`.repeat(5000) + `${"a".repeat(40)}!`;
  const found = await searchLines(text, compilePattern("^(a|a)*$", false), { limit: 1e6, pause });
  assertEquals(found.length, 5000);
  assertEquals(found.at(-1), { line: 5000, text: "a".repeat(40) });
  // 205 000 characters in slices of 32 Ki: a pause between each two.
  assert(pauses >= 6, `${pauses} pauses`);
  const nested = await searchLines(text, compilePattern("(a+)+$", false), { limit: 10, pause });
  assertEquals(nested.length, 10);
  assertEquals(await searchLines(text, compilePattern("(a+)+b$", false), { limit: 10 }), []);
});

Deno.test("searchLines() matches a regular expression on a long line's first 64 Ki, a literal on all of it", async () => {
  const head = `${"x".repeat(100_000)}needle${"y".repeat(1000)}`;
  const early = `${"x".repeat(2000)}needle${"y".repeat(100_000)}`;
  const text = `${head}\n${early}\n`;
  // A literal finds both, cut around the match.
  const literal = await search(text, "needle", false, 10);
  assertEquals(literal.map((m) => m.line), [1, 2]);
  assert(literal[0].text.includes("needle"), literal[0].text);
  // An expression is matched on the first 64 Ki of a line: the second only.
  const regex = await search(text, "need(le)+", false, 10);
  assertEquals(regex.map((m) => m.line), [2]);
  assert(regex[0].text.includes("needle"), "the cut shows the match");
  assertStringIncludes(regex[0].text, "[line cut: 102006 characters]");
});

Deno.test("compilePattern() maps JavaScript escapes and refuses what RE2 cannot run", () => {
  assertEquals(compilePattern("\\u0041\\x42", false).re2?.test("AB"), true);
  assertEquals(compilePattern("[^]", false).re2?.test("\n"), true);
  assertEquals(compilePattern("(?<word>ab)+", false).re2?.test("abab"), true);
  for (
    const [pattern, what] of [
      ["(a)\\1", "backreferences"],
      ["(?=a)", "lookahead"],
      ["(?<=a)b", "lookbehind"],
      ["(?>a)", "atomic"],
      ["a*+", "possessive"],
    ]
  ) {
    const error = assertThrows(() => compilePattern(pattern, false), ToolError);
    assertEquals(error.code, "invalid_arguments");
    assertStringIncludes(error.message, what);
  }
  // Inside a class or escaped, the same characters are no lookahead.
  assertEquals(compilePattern("[(?=]x", false).re2?.test("=x"), true);
  assertEquals(compilePattern("\\(?=x", false).re2?.test("(=x"), true);
});

Deno.test("compilePattern() refuses a pattern too long or too large to keep each step short", () => {
  const long = assertThrows(() => compilePattern(`(${"a".repeat(1000)})`, false), ToolError);
  assertEquals(long.code, "invalid_arguments");
  assertStringIncludes(long.message, "more than the 1000 grep takes");
  const large = assertThrows(() => compilePattern("\\w{1000}", false), ToolError);
  assertStringIncludes(large.message, "instructions, more than 500");
  // A larger expression takes shorter slices: its RE2 steps stay about as long.
  assert(compilePattern("\\w{400}", false).sliceChars < compilePattern("\\w+", false).sliceChars);
});

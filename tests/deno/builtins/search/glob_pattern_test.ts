import { assertEquals, assertStringIncludes, assertThrows } from "@std/assert";
import { ToolError } from "../../../../src/core/tool_error.ts";
import {
  compileFileFilter,
  compileGlob,
} from "../../../../src/deno/builtins/search/glob_pattern.ts";

Deno.test("compileGlob() splits off the literal folders and the depth, and matches by segment", () => {
  const deep = compileGlob("src/**/*.ts", "pattern");
  assertEquals([deep.base, deep.maxDepth], ["src", undefined]);
  assertEquals(
    ["src/a.ts", "src/x/y/b.ts", "a.ts", "src/a.tsx", "lib/src/a.ts"].map(deep.test),
    [true, true, false, false, false],
  );
  const flat = compileGlob("./a/b/*.{md,txt}", "pattern");
  assertEquals([flat.base, flat.maxDepth], ["a/b", 3]);
  assertEquals(["a/b/x.md", "a/b/c/x.md", "a/b/x.js"].map(flat.test), [true, false, false]);
  const any = compileGlob("**", "pattern");
  assertEquals(["a", "a/b/c"].map(any.test), [true, true]);
  const middle = compileGlob("**/test/**/*_test.ts", "pattern");
  assertEquals(["test/a_test.ts", "x/test/y/z/b_test.ts", "x/a_test.ts"].map(middle.test), [
    true,
    true,
    false,
  ]);
  // The name filter handed to find -name: only "*" and literal characters.
  assertEquals(
    ["**/*.ts", "src/*", "*.{ts,js}", "a?.ts", "**", "x/[ab].md"].map((p) =>
      compileGlob(p, "pattern").name
    ),
    ["*.ts", "*", undefined, undefined, undefined, undefined],
  );
  // A deep path with many segments stays fast (no nested quantifiers).
  const long = `${"a/".repeat(200)}x.js`;
  assertEquals(compileGlob("**/*.ts", "pattern").test(long), false);
});

Deno.test("compileFileFilter() matches a name at any depth without a slash, else the path", () => {
  const byName = compileFileFilter("*.ts");
  assertEquals(["a.ts", "x/y/a.ts", "a.js"].map(byName), [true, true, false]);
  const byPath = compileFileFilter("src/*.ts");
  assertEquals(["src/a.ts", "x/src/a.ts"].map(byPath), [true, false]);
});

Deno.test("compileGlob() keeps classes, braces and escapes, and refuses extglob with what to write", () => {
  const glob = (pattern: string) => compileGlob(pattern, "pattern").test;
  assertEquals(["a1.ts", "ab.ts", "a.ts"].map(glob("a[0-9].ts")), [true, false, false]);
  assertEquals(["ab.ts", "a1.ts"].map(glob("a[!0-9].ts")), [true, false]);
  assertEquals(["x.md", "x.txt", "x.js"].map(glob("x.{md,txt}")), [true, true, false]);
  assertEquals(["a*b", "axb"].map(glob("a\\*b")), [true, false]);
  // Parentheses and + alone are literal characters of a name.
  assertEquals(["f(1).txt", "a+b"].map(glob("f(1).txt")), [true, false]);
  for (const pattern of ["!(x)", "src/@(a|b)/*.ts", "+(a)", "*(a)", "?(a)", "+(+(a))b"]) {
    const error = assertThrows(() => compileGlob(pattern, "pattern"), ToolError);
    assertEquals(error.code, "invalid_arguments");
    assertStringIncludes(error.message, "extglob");
    assertStringIncludes(error.message, "{a,b}");
  }
  assertThrows(() => compileFileFilter("!(x).ts"), ToolError, "extglob");
  // Escaped, or inside brackets, the same characters are literal.
  assertEquals(glob("\\!(x)")("!(x)"), true);
  assertEquals(glob("[!(]x")("ax"), true);
});

Deno.test("compileGlob() matches many ** and * without backtracking", () => {
  // 30 globstars over a path 60 folders deep with no match: each name is looked at once per
  // position of the pattern, not once per way to split the path.
  const stars = compileGlob(`${"**/".repeat(30)}x`, "pattern");
  const deep = Array.from({ length: 60 }, (_, i) => `d${i}`).join("/");
  assertEquals(stars.test(`${deep}/y`), false);
  assertEquals(stars.test(`${deep}/x`), true);
  assertEquals(compileFileFilter(`${"**/".repeat(30)}x`)(`${deep}/y`), false);
  // Many * within a name (what a backtracking expression takes minutes over).
  const name = compileGlob(`${"*a".repeat(12)}*b`, "pattern");
  assertEquals(name.test("a".repeat(250)), false);
  assertEquals(name.test(`${"a".repeat(250)}b`), true);
  assertEquals(compileFileFilter(`${"*a".repeat(12)}*b`)(`x/${"a".repeat(250)}`), false);
});

Deno.test("compileGlob() refuses a glob over 500 characters and compiles each distinct segment once", () => {
  const error = assertThrows(() => compileGlob("a/".repeat(251), "pattern"), ToolError);
  assertEquals(error.code, "invalid_arguments");
  assertStringIncludes(error.message, "more than the 500");
  assertThrows(() => compileFileFilter(`${"*".repeat(501)}`), ToolError, "more than the 500");
  const many = compileGlob(`${"?/".repeat(240)}x`, "pattern");
  assertEquals(many.test(`${"a/".repeat(240)}x`), true);
  assertEquals(many.test(`${"ab/".repeat(240)}x`), false);
});

Deno.test("compileGlob() names a segment that is no valid glob", () => {
  const error = assertThrows(() => compileGlob("src/[z-a].ts", "pattern"), ToolError);
  assertEquals(error.code, "invalid_arguments");
  assertStringIncludes(error.message, '"[z-a].ts"');
});

Deno.test('compileGlob() reads "." segments as the folder they stand in, and refuses a glob of only them', () => {
  const dotted = compileGlob("src/./io/*.js", "pattern");
  assertEquals([dotted.base, dotted.maxDepth, dotted.name], ["src/io", 3, "*.js"]);
  assertEquals(["src/io/a.js", "src/a.js"].map(dotted.test), [true, false]);
  for (const pattern of ["./", ".", "./.", ".//./"]) {
    const error = assertThrows(() => compileGlob(pattern, "pattern"), ToolError);
    assertEquals(error.code, "invalid_arguments", pattern);
    assertStringIncludes(error.message, "names only the search folder itself");
  }
});

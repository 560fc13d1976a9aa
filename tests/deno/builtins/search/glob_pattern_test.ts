import { assertEquals } from "@std/assert";
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

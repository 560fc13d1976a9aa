import { assertEquals, assertStringIncludes } from "@std/assert";
import { makeFixture } from "../_fixture.ts";
import { skipWithoutBwrap } from "../../../_helpers/bwrap.ts";
import { run, sandboxed, searchTools, writeTree } from "./_search_fixture.ts";
import type { BuiltinContext } from "@toolroute/toolroute/deno";

const TREE = {
  "src/main.ts": "main\n",
  "src/util/strings.ts": "strings\n",
  "src/util/strings_test.ts": "test\n",
  "src/readme.md": "doc\n",
  "a.ts": "top\n",
  "b.json": "{}\n",
  "z/deep/er/x.ts": "deep\n",
};

for (
  const [label, wrap] of [["", (c: BuiltinContext) => c], [" in the sandbox", sandboxed]] as const
) {
  Deno.test({
    name: `glob${label} matches ** at any depth, * within a folder, braces, in path order`,
    ignore: label !== "" && skipWithoutBwrap(),
    fn: async () => {
      await using f = await makeFixture();
      await writeTree(f.workspace, TREE);
      await using s = await searchTools(wrap(f.context));
      const all = await run(s.tools, "glob", { pattern: "**/*.ts" });
      assertEquals(all, {
        paths: [
          "a.ts",
          "src/main.ts",
          "src/util/strings.ts",
          "src/util/strings_test.ts",
          "z/deep/er/x.ts",
        ],
        truncated: false,
      });
      assertEquals((await run(s.tools, "glob", { pattern: "src/*" })).paths, [
        "src/main.ts",
        "src/readme.md",
      ]);
      assertEquals((await run(s.tools, "glob", { pattern: "*.ts" })).paths, ["a.ts"]);
      assertEquals((await run(s.tools, "glob", { pattern: "*.{ts,json}" })).paths, [
        "a.ts",
        "b.json",
      ]);
      assertEquals((await run(s.tools, "glob", { pattern: "**/*_test.ts" })).paths, [
        "src/util/strings_test.ts",
      ]);
      // Relative to path, shown relative to the workspace.
      assertEquals((await run(s.tools, "glob", { pattern: "*.ts", path: "src/util" })).paths, [
        "src/util/strings.ts",
        "src/util/strings_test.ts",
      ]);
      assertEquals((await run(s.tools, "glob", { pattern: "nothing/**" })).paths, []);
      // "." and empty segments name the same folders as without them.
      for (const pattern of ["src/./util/*.ts", "src//util/*.ts", "./src/util/./*.ts"]) {
        assertEquals((await run(s.tools, "glob", { pattern })).paths, [
          "src/util/strings.ts",
          "src/util/strings_test.ts",
        ], pattern);
      }
      // A read-only root: absolute paths.
      assertEquals((await run(s.tools, "glob", { pattern: "*.txt", path: f.readOnly })).paths, [
        `${f.readOnly}/ro.txt`,
      ]);
    },
  });

  Deno.test({
    name: `glob${label} stops at maxResults (default 500) and at outputMaxChars, saying truncated`,
    ignore: label !== "" && skipWithoutBwrap(),
    fn: async () => {
      await using f = await makeFixture();
      const many: Record<string, string> = {};
      for (let i = 0; i < 520; i++) many[`m/f${String(i).padStart(3, "0")}.txt`] = "";
      await writeTree(f.workspace, many);
      await using s = await searchTools(wrap(f.context));
      const capped = await run<{ paths: string[]; truncated: boolean }>(s.tools, "glob", {
        pattern: "m/*",
      });
      assertEquals([capped.paths.length, capped.truncated], [500, true]);
      assertEquals(capped.paths[0], "m/f000.txt");
      const three = await run<{ paths: string[]; truncated: boolean }>(s.tools, "glob", {
        pattern: "m/*",
        maxResults: 3,
      });
      assertEquals(three, { paths: ["m/f000.txt", "m/f001.txt", "m/f002.txt"], truncated: true });
      const exact = await run(s.tools, "glob", { pattern: "m/f00[0-2].txt", maxResults: 3 });
      assertEquals(exact.truncated, false);
      await using small = await searchTools({ ...wrap(f.context), outputMaxChars: 100 });
      const bounded = await run<{ paths: string[]; truncated: boolean }>(small.tools, "glob", {
        pattern: "m/*",
      });
      assertEquals([bounded.paths.length, bounded.truncated], [7, true]);
    },
  });
}

Deno.test("glob refuses a bad pattern or path with a clear message", async () => {
  await using f = await makeFixture();
  await using s = await searchTools(f.context);
  const cases: [Record<string, unknown>, string, string][] = [
    [{ pattern: "" }, "invalid_arguments", "non-empty glob"],
    [{ pattern: "/etc/*" }, "invalid_arguments", "relative to the search folder"],
    [{ pattern: "../*" }, "invalid_arguments", 'must not contain ".."'],
    [{ pattern: "*", path: "../" }, "permission_denied", "outside allowed roots"],
    [{ pattern: "*", path: f.outside }, "permission_denied", "outside allowed roots"],
    [{ pattern: "*", path: "hello.txt" }, "tool_error", "it is a file"],
    [{ pattern: "*", path: "missing" }, "tool_error", "does not exist"],
    [{ pattern: 5 }, "invalid_arguments", "pattern"],
  ];
  for (const [args, code, text] of cases) {
    const result = await s.tools.call("glob", args);
    assertEquals([result.isError, result.code], [true, code], JSON.stringify(args));
    assertStringIncludes(result.text, text);
  }
});

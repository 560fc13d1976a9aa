import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { makeFixture } from "../_fixture.ts";
import { skipWithoutBwrap } from "../../../_helpers/bwrap.ts";
import { run, sandboxed, searchTools, writeTree } from "./_search_fixture.ts";
import type { BuiltinContext } from "@toolroute/toolroute/deno";

interface Grep {
  matches: { path: string; line: number; text: string }[];
  truncated: boolean;
}

for (
  const [label, wrap] of [["", (c: BuiltinContext) => c], [" in the sandbox", sandboxed]] as const
) {
  Deno.test({
    name: `grep${label} finds lines by regular expression, 1-based, by file in path order`,
    ignore: label !== "" && skipWithoutBwrap(),
    fn: async () => {
      await using f = await makeFixture();
      await writeTree(f.workspace, {
        "src/a.ts": "const x = 1;\nfunction foo() {}\r\nconst y = foo();\n",
        "src/b.md": "foo in docs\n",
        "src/deep/c.ts": "no match\nFOO upper\n",
        "top.ts": "foofoo twice on one line\n",
      });
      await using s = await searchTools(wrap(f.context));
      assertEquals(await run<Grep>(s.tools, "grep", { pattern: "foo" }), {
        matches: [
          { path: "src/a.ts", line: 2, text: "function foo() {}" },
          { path: "src/a.ts", line: 3, text: "const y = foo();" },
          { path: "src/b.md", line: 1, text: "foo in docs" },
          { path: "top.ts", line: 1, text: "foofoo twice on one line" },
        ],
        truncated: false,
      });
      const insensitive = await run<Grep>(s.tools, "grep", {
        pattern: "^foo",
        ignoreCase: true,
        glob: "*.ts",
      });
      assertEquals(insensitive.matches.map((m) => `${m.path}:${m.line}`), [
        "src/deep/c.ts:2",
        "top.ts:1",
      ]);
      const scoped = await run<Grep>(s.tools, "grep", { pattern: "foo\\(\\)", path: "src" });
      assertEquals(scoped.matches.map((m) => `${m.path}:${m.line}`), ["src/a.ts:2", "src/a.ts:3"]);
      const byPath = await run<Grep>(s.tools, "grep", { pattern: "o", glob: "src/**/*.ts" });
      assertEquals(
        new Set(byPath.matches.map((m) => m.path)),
        new Set(["src/a.ts", "src/deep/c.ts"]),
      );
      const oneFile = await run<Grep>(s.tools, "grep", { pattern: "world", path: "hello.txt" });
      assertEquals(oneFile.matches, [{ path: "hello.txt", line: 2, text: "world" }]);
      const ro = await run<Grep>(s.tools, "grep", { pattern: "only", path: f.readOnly });
      assertEquals(ro.matches, [{ path: `${f.readOnly}/ro.txt`, line: 1, text: "read only" }]);
      // Lines are matched on their own: `$` is the end of a line, a match never spans lines.
      const ends = await run<Grep>(s.tools, "grep", { pattern: "\\{\\}$|x = 1;\\s+function" });
      assertEquals(ends.matches.map((m) => `${m.path}:${m.line}`), ["src/a.ts:2"]);
    },
  });

  Deno.test({
    name:
      `grep${label} skips binary files, cuts long lines and stops at maxResults and outputMaxChars`,
    ignore: label !== "" && skipWithoutBwrap(),
    fn: async () => {
      await using f = await makeFixture();
      await Deno.writeFile(`${f.workspace}/bin.dat`, new Uint8Array([110, 101, 101, 100, 0, 10]));
      const long = `${"x".repeat(2000)}needle${"y".repeat(2000)}`;
      const many = Array.from({ length: 150 }, (_, i) => `needle ${i}`).join("\n");
      await writeTree(f.workspace, { "long.txt": `${long}\n`, "many.txt": many });
      await using s = await searchTools(wrap(f.context));
      const found = await run<Grep>(s.tools, "grep", { pattern: "need", path: "long.txt" });
      assertEquals(found.matches.length, 1);
      const text = found.matches[0].text;
      assert(text.length < 600, `cut to about 500 characters, got ${text.length}`);
      assertStringIncludes(text, "needle");
      assert(text.startsWith("…") && text.endsWith("[line cut: 4006 characters]"), text.slice(-60));
      const all = await run<Grep>(s.tools, "grep", { pattern: "need" });
      assert(!all.matches.some((m) => m.path === "bin.dat"), "a binary file is skipped");
      assertEquals([all.matches.length, all.truncated], [100, true]);
      const few = await run<Grep>(s.tools, "grep", { pattern: "needle 1\\d\\b", maxResults: 5 });
      assertEquals(few.matches.map((m) => m.line), [11, 12, 13, 14, 15]);
      assertEquals(few.truncated, true);
      const exact = await run<Grep>(s.tools, "grep", { pattern: "needle 14\\d", maxResults: 10 });
      assertEquals([exact.matches.length, exact.truncated], [10, false]);
      await using small = await searchTools({ ...wrap(f.context), outputMaxChars: 200 });
      const bounded = await run<Grep>(small.tools, "grep", {
        pattern: "needle \\d+$",
        path: "many.txt",
      });
      assert(bounded.truncated && bounded.matches.length > 2 && bounded.matches.length < 6);
    },
  });
}

Deno.test("grep refuses a bad regular expression or path, naming the problem", async () => {
  await using f = await makeFixture();
  await using s = await searchTools(f.context);
  const cases: [Record<string, unknown>, string, string][] = [
    [{ pattern: "foo(" }, "invalid_arguments", '"pattern" is not a valid regular expression'],
    [{ pattern: "[z-a]" }, "invalid_arguments", "invalid character class range"],
    [{ pattern: "" }, "invalid_arguments", "pattern"],
    [{ pattern: "x", glob: "/abs/*.ts" }, "invalid_arguments", "relative to the search folder"],
    [{ pattern: "x", path: "../ws_evil" }, "permission_denied", "outside allowed roots"],
    [{ pattern: "x", path: "nope" }, "tool_error", "does not exist"],
    [{ pattern: "x", maxResults: 0 }, "invalid_arguments", "maxResults"],
  ];
  for (const [args, code, text] of cases) {
    const result = await s.tools.call("grep", args);
    assertEquals([result.isError, result.code], [true, code], JSON.stringify(args));
    assertStringIncludes(result.text, text);
  }
  const unterminated = await s.tools.call("grep", { pattern: "foo(" });
  assertStringIncludes(unterminated.text, "missing closing )");
  // Lenient escapes that only Unicode mode refuses still work.
  await Deno.writeTextFile(`${f.workspace}/dash.txt`, "a-b\n");
  assertEquals((await run<Grep>(s.tools, "grep", { pattern: "a\\-b" })).matches.length, 1);
});

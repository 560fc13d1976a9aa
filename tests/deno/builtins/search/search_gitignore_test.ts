import { assertEquals } from "@std/assert";
import { makeFixture } from "../_fixture.ts";
import { skipWithoutBwrap } from "../../../_helpers/bwrap.ts";
import { run, sandboxed, searchTools, writeTree } from "./_search_fixture.ts";
import type { BuiltinContext } from "@toolroute/toolroute/deno";

for (
  const [label, wrap] of [["", (c: BuiltinContext) => c], [" in the sandbox", sandboxed]] as const
) {
  Deno.test({
    name:
      `glob and grep${label} skip what nested .gitignore files exclude, with negation, unless includeIgnored`,
    ignore: label !== "" && skipWithoutBwrap(),
    fn: async () => {
      await using f = await makeFixture();
      await writeTree(f.workspace, {
        ".gitignore": "node_modules/\n*.log\n!keep.log\n/out\n",
        "node_modules/dep/index.js": "needle\n",
        "app.log": "needle\n",
        "keep.log": "needle\n",
        "out/bundle.js": "needle\n",
        "src/out/kept.js": "needle\n",
        "src/.gitignore": "gen/\n!*.log\n",
        "src/gen/a.js": "needle\n",
        "src/debug.log": "needle\n",
        "src/main.js": "needle\n",
        "docs/.gitignore": "*\n!*.md\n",
        "docs/a.md": "needle\n",
        "docs/b.txt": "needle\n",
      });
      await using s = await searchTools(wrap(f.context));
      const kept = ["docs/a.md", "keep.log", "src/debug.log", "src/main.js", "src/out/kept.js"];
      const grep = await run<{ matches: { path: string }[] }>(s.tools, "grep", {
        pattern: "needle",
      });
      assertEquals(grep.matches.map((m) => m.path), kept);
      const glob = await run<{ paths: string[] }>(s.tools, "glob", {
        pattern: "**/*.{js,log,md,txt}",
      });
      assertEquals(glob.paths, [kept[0], "hello.txt", ...kept.slice(1)]);
      // Searching below a folder still applies the .gitignore files above it.
      const below = await run<{ paths: string[] }>(s.tools, "glob", { pattern: "**", path: "src" });
      assertEquals(below.paths, [
        "src/.gitignore",
        "src/debug.log",
        "src/main.js",
        "src/out/kept.js",
      ]);
      const all = await run<{ matches: { path: string }[] }>(s.tools, "grep", {
        pattern: "needle",
        includeIgnored: true,
      });
      assertEquals(all.matches.length, 10);
      // A file named explicitly is searched even when ignored, as ripgrep does.
      const named = await run<{ matches: unknown[] }>(s.tools, "grep", {
        pattern: "needle",
        path: "app.log",
      });
      assertEquals(named.matches.length, 1);
    },
  });
}

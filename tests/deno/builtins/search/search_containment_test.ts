import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { makeFixture, SECRET } from "../_fixture.ts";
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
    name:
      `glob and grep${label} never follow a symlink out, survive a symlink loop, a FIFO and a 1 GB sparse file`,
    ignore: label !== "" && skipWithoutBwrap(),
    fn: async () => {
      await using f = await makeFixture();
      await writeTree(f.workspace, { "src/ok.txt": "inside marker\n" });
      await Deno.symlink(f.outside, `${f.workspace}/out_dir`);
      await Deno.symlink(`${f.outside}/secret.txt`, `${f.workspace}/out_file.txt`);
      await Deno.symlink(f.workspace, `${f.workspace}/src/loop`);
      await Deno.symlink("self", `${f.workspace}/self`);
      const fifo = new Deno.Command("mkfifo", { args: [`${f.workspace}/src/pipe.txt`] });
      assert((await fifo.output()).success, "mkfifo");
      {
        using sparse = await Deno.open(`${f.workspace}/src/sparse.txt`, {
          create: true,
          write: true,
        });
        await sparse.truncate(1024 ** 3);
      }
      await using s = await searchTools(wrap(f.context));
      const secret = await run<Grep>(s.tools, "grep", { pattern: SECRET.slice(0, 10) });
      assertEquals(secret, { matches: [], truncated: false });
      const marker = await run<Grep>(s.tools, "grep", { pattern: "marker", includeIgnored: true });
      assertEquals(marker.matches.map((m) => m.path), ["src/ok.txt"]);
      const files = await run<{ paths: string[] }>(s.tools, "glob", { pattern: "**" });
      assertEquals(files.paths, ["hello.txt", "src/ok.txt", "src/sparse.txt"]);
      // Named explicitly: the sparse file is skipped (binary, too large), the FIFO refused.
      const sparse = await run<Grep>(s.tools, "grep", { pattern: "x", path: "src/sparse.txt" });
      assertEquals(sparse, { matches: [], truncated: false });
      const pipe = await s.tools.call("grep", { pattern: "x", path: "src/pipe.txt" });
      assertEquals(pipe.code, "tool_error");
      assertStringIncludes(pipe.text, "neither a folder nor a file");
      // A pattern naming the link's folder does not go through it either.
      assertEquals(
        (await run<{ paths: string[] }>(s.tools, "glob", { pattern: "out_dir/*" })).paths,
        [],
      );
      assertEquals(
        (await run<{ paths: string[] }>(s.tools, "glob", { pattern: "src/loop/**" })).paths,
        [],
      );
      // As the search path, a link out is refused like any other path outside.
      const viaLink = await s.tools.call("grep", { pattern: "x", path: "out_dir" });
      assertEquals(viaLink.code, "permission_denied");
      const up = await s.tools.call("glob", { pattern: "*", path: "src/../../outside" });
      assertEquals(up.code, "permission_denied");
      const sibling = await s.tools.call("grep", { pattern: "x", path: f.sibling });
      assertEquals(sibling.code, "permission_denied");
    },
  });

  Deno.test({
    name: `glob and grep${label} never enter .git at any depth, even with includeIgnored`,
    ignore: label !== "" && skipWithoutBwrap(),
    fn: async () => {
      await using f = await makeFixture();
      await writeTree(f.workspace, {
        ".git/config": "needle\n",
        ".git/objects/x.ts": "needle\n",
        "vendor/lib/.git/HEAD.ts": "needle\n",
        "vendor/lib/.GIT/other.ts": "needle\n",
        "vendor/lib/code.ts": "needle\n",
      });
      await Deno.writeTextFile(`${f.workspace}/sub.ts`, "needle\n");
      await writeTree(f.workspace, {
        "wt/.git": "gitdir: elsewhere needle\n",
        "wt/a.ts": "needle\n",
      });
      await using s = await searchTools(wrap(f.context));
      for (const includeIgnored of [false, true]) {
        const found = await run<Grep>(s.tools, "grep", { pattern: "needle", includeIgnored });
        assertEquals(found.matches.map((m) => m.path), ["sub.ts", "vendor/lib/code.ts", "wt/a.ts"]);
        const listed = await run<{ paths: string[] }>(s.tools, "glob", {
          pattern: "**/*",
          includeIgnored,
        });
        assert(!listed.paths.some((p) => /\.git(\/|$)/i.test(p)), listed.paths.join());
      }
    },
  });
}

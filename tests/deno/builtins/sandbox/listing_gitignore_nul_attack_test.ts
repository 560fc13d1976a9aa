// Outside attack on the sandboxed listing (s36, attack3): the supervisor read a `.gitignore` with
// the searches' file read, which skips a file whose first 64 KiB hold a NUL byte (binary). The
// host reads a `.gitignore` whole. A `.gitignore` of more than 64 KiB with a NUL byte early (a
// model's command writes one, or a repository ships one) was applied in process and dropped in the
// sandbox: the files it ignores reached the model from a sandboxed glob only.
import { assertEquals } from "@std/assert";
import { skipWithoutBwrap } from "../../../_helpers/bwrap.ts";
import { makeFixture } from "../_fixture.ts";
import { run, sandboxed, searchTools } from "../search/_search_fixture.ts";

Deno.test({
  name: "a .gitignore over 64 KiB with a NUL byte early ignores the same files in the sandbox",
  ignore: skipWithoutBwrap(),
  fn: async () => {
    await using f = await makeFixture();
    await Deno.writeTextFile(`${f.workspace}/secret.env`, "KEY=1\n");
    // The attack reaches the seam: more than the supervisor's first read, a NUL byte in it.
    const text = `#\0${"#".repeat(70_000)}\n*.env\n`;
    await Deno.writeTextFile(`${f.workspace}/.gitignore`, text);
    const paths: string[][] = [];
    for (const context of [f.context, sandboxed(f.context)]) {
      await using s = await searchTools(context);
      paths.push((await run<{ paths: string[] }>(s.tools, "glob", { pattern: "*" })).paths);
    }
    assertEquals(paths[0], [".gitignore", "hello.txt"]);
    assertEquals(paths[1], paths[0]);
  },
});

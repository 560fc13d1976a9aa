// Outside attack on the sandboxed listing (s36, attack3): the supervisor's `list` cut its records
// into frames only between folders, so one folder whose paths add up to more than the host's
// frame limit (`MAX_FRAME_BODY`, 17 MiB) went out as one frame. What a model's command makes with
// a deep folder and a few thousand long names in it: the host took the frame as out of protocol
// and ended the whole session (a command running beside the search was killed with it), and every
// later sandboxed glob or grep reaching the folder did the same. In process the tree is searched.
import { assert, assertEquals } from "@std/assert";
import { ToolRouter, type ToolSet } from "@toolroute/toolroute";
import { type BuiltinContext, builtinTools } from "@toolroute/toolroute/deno";
import { skipWithoutBwrap } from "../../../_helpers/bwrap.ts";
import { makeFixture } from "../_fixture.ts";
import { sandboxed } from "../search/_search_fixture.ts";
import { MAX_FRAME_BODY } from "../../../../src/deno/sandbox/protocol.ts";

async function tools(context: BuiltinContext): Promise<{ tools: ToolSet } & AsyncDisposable> {
  const router = new ToolRouter({ builtins: builtinTools(context) });
  const tools = await router.expose({ builtins: ["bash", "glob", "grep"] });
  return { tools, [Symbol.asyncDispose]: () => router.close() };
}

Deno.test({
  name:
    "one folder of paths over the host's frame limit is listed in the sandbox, and the session (and a command beside it) survives",
  ignore: skipWithoutBwrap(),
  fn: async () => {
    await using f = await makeFixture();
    await Deno.writeTextFile(`${f.workspace}/a.txt`, "needle\n");
    await using t = await tools({ ...sandboxed(f.context), commandTimeoutMs: 60_000 });
    assertEquals(JSON.parse((await t.tools.call("glob", { pattern: "**/*.txt" })).text).paths, [
      "a.txt",
      "hello.txt",
    ]);
    // The session runs; now the tree (written from the host, as the model's command would: the
    // running session serves searches without looking at the workspace again).
    const deep = Array.from({ length: 15 }, () => "d".repeat(250)).join("/");
    await Deno.mkdir(`${f.workspace}/${deep}`, { recursive: true });
    const count = 5000;
    let listed = 0;
    for (let i = 0; i < count; i++) {
      const name = `${"f".repeat(240)}${i}`;
      Deno.writeFileSync(`${f.workspace}/${deep}/${name}`, new Uint8Array());
      listed += `f${deep}/${name}\0`.length;
    }
    Deno.writeFileSync(`${f.workspace}/${deep}/zz.txt`, new TextEncoder().encode("needle\n"));
    // The attack reaches the seam: the folder's records alone are more than one frame may carry.
    assert(listed > MAX_FRAME_BODY, `${listed} bytes of records`);
    const beside = t.tools.call("bash", { command: "sleep 2; echo BESIDE" });
    const found = await t.tools.call("grep", { pattern: "needle" });
    assertEquals(found.isError, false, found.text);
    assertEquals(
      JSON.parse(found.text).matches.map((match: { path: string }) => match.path),
      ["a.txt", `${deep}/zz.txt`],
    );
    const ran = await beside;
    assertEquals(ran.isError, false, ran.text);
    assert(ran.text.includes("BESIDE"), ran.text);
    const globbed = await t.tools.call("glob", { pattern: "**/*.txt" });
    assertEquals(globbed.isError, false, globbed.text);
    assertEquals(JSON.parse(globbed.text).paths, ["a.txt", `${deep}/zz.txt`, "hello.txt"]);
    // The same as in process.
    await using host = await tools({ ...f.context, commandTimeoutMs: 60_000 });
    assertEquals((await host.tools.call("glob", { pattern: "**/*.txt" })).text, globbed.text);
  },
});

// A model's sandboxed command can rewrite the workspace's .toolroute/results: a FIFO (or a link to
// one) put where a stored file was must not hold the read_result that reads it, nor a thread of
// the router's process.
import { assert, assertEquals, assertMatch } from "@std/assert";
import { ToolRouter } from "@toolroute/toolroute";
import { builtinTools } from "@toolroute/toolroute/deno";
import { makeFixture } from "../builtins/_fixture.ts";
import { skipWithoutBwrap } from "../../_helpers/bwrap.ts";

for (const kind of ["data", "info"] as const) {
  Deno.test({
    name:
      `attack: a FIFO the model's command puts in place of a stored result's ${kind} file reads as gone, at once`,
    ignore: skipWithoutBwrap(),
    async fn() {
      await using fixture = await makeFixture();
      await Deno.writeTextFile(`${fixture.workspace}/big.txt`, "x".repeat(8000));
      await using router = new ToolRouter({
        builtins: builtinTools({
          ...fixture.context,
          commandTimeoutMs: 20_000,
          bash: { sandbox: "bwrap" },
        }),
        resultBudget: { sources: { builtin: 300 } },
      });
      const tools = await router.expose({ builtins: ["read_file", "bash"], userId: "mallory" });
      const cut = await tools.call("read_file", { path: "big.txt" });
      assertMatch(cut.resultHandle ?? "", /^res_b[0-9a-f]{32}$/);
      const path = `.toolroute/results/${cut.resultHandle}.${kind}`;
      const planted = await tools.call("bash", {
        command: `rm -f ${path} && mkfifo ${path}`,
      });
      assert(!planted.isError, planted.text);
      // The attack ran: the model's own command replaced the stored file with a FIFO.
      assert(Deno.lstatSync(`${fixture.workspace}/${path}`).isFifo);
      // Contained: the read answers at once as for a result that is gone (before, it waited on the
      // FIFO until the call's deadline, and the thread that opened it stayed blocked after).
      const read = await tools.call("read_result", { handle: cut.resultHandle }, {
        timeoutMs: 5_000,
      });
      assert(read.isError);
      assertEquals(read.code, "unknown_tool", read.text);
    },
  });
}

Deno.test("attack: a link the model puts at .toolroute makes no folder where it leads; the router's store keeps the result", async () => {
  await using fixture = await makeFixture();
  await Deno.writeTextFile(`${fixture.workspace}/big.txt`, "x".repeat(8000));
  // The model's tools planted a link one level above the result folder.
  await Deno.symlink(fixture.outside, `${fixture.workspace}/.toolroute`);
  await using router = new ToolRouter({
    builtins: builtinTools(fixture.context),
    resultBudget: { tokens: 200 },
  });
  const tools = await router.expose({ builtins: ["read_file"] });
  const cut = await tools.call("read_file", { path: "big.txt" });
  // The attack ran: the store went to put the result below the link, which still leads outside
  // (before, `mkdir -p` made `results` in the outside folder, then the check refused it).
  assert(Deno.lstatSync(`${fixture.workspace}/.toolroute`).isSymlink);
  assertMatch(cut.resultHandle ?? "", /^res_r/);
  // Contained: nothing was made outside, and the result is read from the router's own store.
  assertEquals([...Deno.readDirSync(fixture.outside)].map((e) => e.name), ["secret.txt"]);
  assertMatch(
    (await tools.call("read_result", { handle: cut.resultHandle })).text,
    /^\{"path":"big.txt","content":"x+/,
  );
});

// The walk before a command or write looks the absent start-up files of the workspace folder
// (./deno.json, ./toolroute.lock) up again only when that folder changed since a look that found
// none. A sandboxed command waits until that look is trusted (past the racy window), creates
// the files and sets the folder's times back with `touch -d`, in the hope that the next walk
// takes the folder as unchanged; the folder's ctime, which no command can set, still moved.
import { assert, assertEquals, assertFalse } from "@std/assert";
import { ToolRouter } from "@toolroute/toolroute";
import { builtinTools } from "@toolroute/toolroute/deno";
import { makeFixture } from "./_fixture.ts";
import { exists } from "../../_helpers/exists.ts";
import { skipWithoutBwrap } from "../../_helpers/bwrap.ts";
import { RACY_MS } from "../../../src/deno/builtins/sandbox/protected_mounts.ts";

Deno.test({
  name:
    "a sandboxed command that creates deno.json and the lock, then sets the workspace folder's times back, finds them renamed aside",
  ignore: skipWithoutBwrap(),
  fn: async () => {
    await using fx = await makeFixture();
    const ws = fx.workspace;
    await using router = new ToolRouter({
      builtins: builtinTools({
        workspace: ws,
        bash: { sandbox: "bwrap" },
        protectedPaths: [".git", "./deno.json", "./toolroute.lock"],
      }),
    });
    const tools = await router.expose({ builtins: ["bash", "write_file"] });
    assertFalse((await tools.call("bash", { command: "true" })).isError);
    // Past the racy window: the walks now trust the folder's look that found none.
    await new Promise((resolve) => setTimeout(resolve, RACY_MS + 300));
    assertFalse((await tools.call("bash", { command: "true" })).isError);
    const before = await Deno.stat(ws);
    const result = await tools.call("bash", {
      command: `printf '{"tasks":{"x":"evil"}}' > deno.json && printf evil > toolroute.lock && ` +
        `touch -m -d @${Math.floor(before.mtime!.getTime() / 1000)} . && ` +
        `touch -a -d @${
          Math.floor(before.atime!.getTime() / 1000)
        } . && ls deno.json toolroute.lock && stat -c %Y .`,
    });
    assertFalse(result.isError, result.text);
    const body = JSON.parse(result.text);
    // It ran: the files were made inside the command, and the folder's mtime is back.
    const mtime = Math.floor(before.mtime!.getTime() / 1000);
    assertEquals(body.stdout, `deno.json\ntoolroute.lock\n${mtime}\n`);
    for (const name of ["deno.json", "toolroute.lock"]) {
      assertFalse(await exists(`${ws}/${name}`), `${name} was left in place`);
      assert(await exists(`${ws}/${name}.disabled-by-toolroute`), name);
    }
    // A write right after (the walk before it) lands, and the files stay aside.
    const write = await tools.call("write_file", { path: "notes.txt", content: "ok" });
    assertFalse(write.isError, write.text);
    assertFalse(await exists(`${ws}/deno.json`));
  },
});

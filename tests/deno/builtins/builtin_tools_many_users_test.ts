import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { ToolRouter } from "@toolroute/toolroute";
import { builtinTools } from "@toolroute/toolroute/deno";
import { sandboxUsersOf } from "../../../src/deno/builtins/builtin_tools.ts";
import { skipWithoutBwrap } from "../../_helpers/bwrap.ts";

// A host serves many users from one router for days: users who came once must not leave their
// sandbox bookkeeping behind for the life of the process.

Deno.test("built-in tools without a sandbox keep nothing per user, however many users come", async () => {
  const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_users_" }));
  await Deno.writeTextFile(`${workspace}/notes.txt`, "hello\n");
  const builtins = builtinTools({ workspace, bash: false });
  await using router = new ToolRouter({ builtins });
  try {
    for (let user = 0; user < 500; user++) {
      const tools = await router.expose({ builtins: ["read_file"], userId: `once-${user}` });
      const read = await tools.call("read_file", { path: "notes.txt" });
      assertStringIncludes(read.text, "hello");
    }
    assertEquals(sandboxUsersOf(builtins), 0);
  } finally {
    await router.close();
    await Deno.remove(workspace, { recursive: true });
  }
});

Deno.test({
  name:
    "sandboxed built-in tools let go of users whose sessions closed, and keep the one whose session runs",
  ignore: skipWithoutBwrap(),
  async fn() {
    const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_users_" }));
    const context = { workspace, bash: true as const };
    const builtins = builtinTools(context);
    await using router = new ToolRouter({ builtins });
    try {
      // Alice's sandbox runs through the whole test: her /tmp must outlive every sweep.
      const alice = await router.expose({ builtins: ["bash"], userId: "alice" });
      const wrote = await alice.call("bash", { command: "echo kept > /tmp/alice.txt" });
      assertEquals(wrote.isError, false, wrote.text);
      for (let user = 0; user < 70; user++) {
        const userId = `once-${user}`;
        const tools = await router.expose({ builtins: ["bash"], userId });
        const ran = await tools.call("bash", { command: "true" });
        assertEquals(ran.isError, false, ran.text);
        // The user leaves: the host closes their sandbox.
        await builtins.closeContext(context, { userId });
      }
      const held = sandboxUsersOf(builtins);
      assert(held < 64, `sandbox sessions are kept for ${held} users`);
      const read = await alice.call("bash", { command: "cat /tmp/alice.txt" });
      assertEquals(JSON.parse(read.text).stdout, "kept\n");
    } finally {
      await router.close();
      await Deno.remove(workspace, { recursive: true });
    }
  },
});

import { assert, assertEquals } from "@std/assert";
import { ToolRouter, type ToolSet } from "@toolroute/toolroute";
import { builtinTools } from "@toolroute/toolroute/deno";
import { sandboxUsersOf } from "../../../src/deno/builtins/builtin_tools.ts";
import { skipWithoutBwrap } from "../../_helpers/bwrap.ts";
import { leftovers } from "./_bash_fixture.ts";

/** Processes whose command line names `text` (the sandbox's arguments name the workspace). */

function stdout(text: string): string {
  return JSON.parse(text).stdout;
}

/**
 * Users with sessions that close at once (idle 0) race the sweep of idle users: each one's
 * commands, file tools and closeContext run together, so a sweep sees instances that are
 * acquiring, starting, closing and empty. Had a sweep let go of one that still held something, the
 * user's next use would make a second instance, and the first one's session (with Alice's
 * background process) would no longer be closed by close(): a bwrap left running.
 */
Deno.test({
  name:
    "attack: sweeps of idle users racing acquires, background processes and closeContext leave nothing running after close",
  ignore: skipWithoutBwrap(),
  async fn() {
    const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_sweep_" }));
    await Deno.writeTextFile(`${workspace}/notes.txt`, "hello\n");
    const context = { workspace, bash: true as const };
    const builtins = builtinTools(context, { sessionIdleMs: 0 });
    const router = new ToolRouter({ builtins });
    try {
      // Alice's background process holds her session through every sweep.
      const alice = await router.expose({ builtins: ["bash"], userId: "alice" });
      const started = await alice.call("bash", {
        action: "start",
        command: "echo up > /tmp/alice.txt; sleep 300",
      });
      assertEquals(started.isError, false, started.text);
      const { processId } = JSON.parse(started.text);
      const churn = async (userId: string, index: number) => {
        const tools: ToolSet = await router.expose({
          builtins: ["bash", "read_file"],
          userId,
        });
        const [ran, read] = await Promise.all([
          tools.call("bash", { command: "echo $((1+1))" }),
          tools.call("read_file", { path: "notes.txt" }),
          index % 3 === 0 ? builtins.closeContext(context, { userId }) : undefined,
        ]);
        assertEquals(ran.isError, false, ran.text);
        assertEquals(stdout(ran.text), "2\n");
        assertEquals(read.isError, false, read.text);
        // Some users come back at once, after their instance may have been let go.
        if (index % 4 === 0) {
          const again = await tools.call("bash", { command: "echo again" });
          assertEquals(stdout(again.text), "again\n");
        }
      };
      let users = 0;
      for (let batch = 0; batch < 33; batch++) {
        await Promise.all([0, 1].map(() => churn(`once-${users}`, users++)));
      }
      // The attack ran: enough users came that sweeps ran (the count was bounded by them).
      assertEquals(users, 66);
      assert(sandboxUsersOf(builtins) < users, `kept ${sandboxUsersOf(builtins)} users`);
      // Alice's process and /tmp survived every sweep: her instance was never let go.
      const status = await alice.call("bash", { action: "status", processId });
      assertEquals(JSON.parse(status.text).running, true, status.text);
      const read = await alice.call("bash", { command: "cat /tmp/alice.txt" });
      assertEquals(stdout(read.text), "up\n");
      assert((await leftovers(workspace, 0)).length > 0, "Alice's sandbox is not running");
    } finally {
      await router.close();
    }
    // close() reached every session: none is left running.
    assertEquals(await leftovers(workspace, 15_000), []);
    await Deno.remove(workspace, { recursive: true });
  },
});

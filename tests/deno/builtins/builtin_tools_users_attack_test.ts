import { assert, assertEquals, assertStringIncludes, assertThrows } from "@std/assert";
import { ToolRouter } from "@toolroute/toolroute";
import { builtinTools } from "@toolroute/toolroute/deno";
import { skipWithoutBwrap } from "../../_helpers/bwrap.ts";

// A host serving several users from one router, with one and the same context for all of them
// (the library's default): each user must still get their own sandbox session (/tmp, PID
// namespace, limits) and background-process table. Before, both users landed in one session
// and one table, keyed by the context alone.

Deno.test({
  name:
    "two users of one router with an equal context never share background processes, /tmp or processes",
  ignore: skipWithoutBwrap(),
  async fn() {
    const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_users_" }));
    await using router = new ToolRouter({ builtins: builtinTools({ workspace, bash: true }) });
    try {
      const alice = await router.expose({ builtins: ["bash"], userId: "alice" });
      const bob = await router.expose({ builtins: ["bash"], userId: "bob" });
      const bash = async (tools: typeof alice, args: Record<string, unknown>) => {
        const result = await tools.call("bash", args);
        return { ...result, value: result.isError ? undefined : JSON.parse(result.text) };
      };

      // The attack's target exists and runs: Alice's job, her /tmp file, her process.
      const started = await bash(alice, {
        action: "start",
        command: "echo ALICE-LOG-LINE; echo alice-secret > /tmp/alice.txt; exec sleep 300",
      });
      assertEquals(started.isError, false, started.text);
      const id = started.value.processId as string;
      let log = "";
      while (!log.includes("ALICE-LOG-LINE")) {
        await new Promise((resolve) => setTimeout(resolve, 50)); // lets the log's reader run
        log = (await bash(alice, { action: "logs", processId: id })).text;
      }
      assertEquals((await bash(alice, { action: "status", processId: id })).value.running, true);
      const own = await bash(alice, { command: "cat /tmp/alice.txt; ps -eo args" });
      assertStringIncludes(own.value.stdout, "alice-secret");
      assertStringIncludes(own.value.stdout, "sleep 300");

      // Bob, with the very same context, reaches none of it.
      assertEquals((await bash(bob, { action: "list" })).value.processes ?? [], []);
      for (const action of ["status", "logs", "stop", "write"]) {
        const tried = await bash(bob, { action, processId: id, input: "x\n" });
        assertEquals([tried.isError, tried.code], [true, "tool_error"], action);
        assertStringIncludes(tried.text, `Unknown processId "${id}"`);
      }
      const theirs = await bash(bob, { command: "cat /tmp/alice.txt; ls -A /tmp; ps -eo args" });
      assertEquals(theirs.isError, false, theirs.text);
      assert(!theirs.value.stdout.includes("alice-secret"), theirs.value.stdout);
      assert(!theirs.value.stdout.includes("sleep 300"), theirs.value.stdout);
      assertStringIncludes(theirs.value.stderr, "No such file");

      // Bob's stop did not stop Alice's job.
      assertEquals((await bash(alice, { action: "status", processId: id })).value.running, true);
    } finally {
      await router.close();
      await Deno.remove(workspace, { recursive: true });
    }
  },
});

Deno.test("the built-ins refuse a request whose userId is not a string", () => {
  const source = builtinTools({ workspace: "/tmp/toolroute-never-used" });
  assertThrows(
    () => source.resolve(["read_file"], undefined, { userId: 42 as unknown as string }),
    TypeError,
    '"userId" must be a string',
  );
});

Deno.test("closeContext ends one user's background processes, or every user's without a user", async () => {
  const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_users_" }));
  const context = { workspace, bash: { sandbox: "none" as const } };
  const source = builtinTools(context);
  await using router = new ToolRouter({ builtins: source });
  try {
    const start = async (userId: string) => {
      const tools = await router.expose({ builtins: ["bash"], userId });
      const started = await tools.call("bash", { action: "start", command: "exec sleep 300" });
      const id = JSON.parse(started.text).processId as string;
      return async () => {
        const status = await tools.call("bash", { action: "status", processId: id });
        // The tool set keeps the closed table: its process reads as ended, a new one's as unknown.
        return !status.isError && JSON.parse(status.text).running ? "running" : "stopped";
      };
    };
    const alice = await start("alice");
    const bob = await start("bob");
    assertEquals([await alice(), await bob()], ["running", "running"]);
    await source.closeContext(context, { userId: "alice" });
    assertEquals([await alice(), await bob()], ["stopped", "running"]);
    await source.closeContext(context);
    assertEquals(await bob(), "stopped");
  } finally {
    await router.close();
    await Deno.remove(workspace, { recursive: true });
  }
});

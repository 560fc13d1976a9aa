/**
 * Probe, kept out of the suite (not named `*_test.ts`; it fails today): run with
 * `CI=true deno test --no-prompt -A tests/_attacks/supervisor_into_cmd_cgroup_attack.ts`.
 *
 * The file a command's shell writes 0 to (to enter the limited cgroup) is bound writable into
 * the sandbox, and the kernel lets the same user write any visible pid or tid into it: a command
 * moves every thread of the supervisor into `cmd`. The supervisor then shares the command's
 * limits: during a fork bomb of that session (bounded, 3 s here) its next command fails to start
 * ("could not start the command"), or the supervisor exits and the session ends (the next call
 * starts a fresh one). Only the attacker's own session suffers. See docs/security.md ("Attacks on session 21's changes").
 *
 * @module
 */
import { assertEquals } from "@std/assert";
import { ToolRouter } from "@toolroute/toolroute";
import { builtinTools } from "@toolroute/toolroute/deno";

Deno.test("a command that moves the supervisor into the limited cgroup cannot starve the session's next command", async () => {
  const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_sup_cg_" }));
  try {
    await using router = new ToolRouter({
      builtins: builtinTools({
        workspace: ws,
        commandTimeoutMs: 6000,
        bash: { sandbox: "bwrap", limits: { processes: 64, memoryMiB: 256 } },
      }),
    });
    const tools = await router.expose({ builtins: ["bash"] });
    const moved = await tools.call("bash", {
      command: `for p in $(ls /proc | grep -E '^[0-9]+$'); do
        grep -q toolroute/deno /proc/$p/cmdline 2>/dev/null || continue
        for t in /proc/$p/task/*; do for f in /.toolroute/cg/*; do echo \${t##*/} > $f; done; done
      done; wc -l < /.toolroute/cg/0`,
    });
    const inCmd = Number(JSON.parse(moved.text).stdout);
    const bomb = tools.call("bash", {
      action: "start",
      command: "end=$((SECONDS+3)); b() { [ $SECONDS -lt $end ] && { b | b & }; }; b; sleep 3",
    });
    await new Promise((resolve) => setTimeout(resolve, 800));
    const during = await tools.call("bash", { command: "echo during" });
    await bomb;
    await new Promise((resolve) => setTimeout(resolve, 3500));
    console.log(`${inCmd} tasks in cmd after the move; during the bomb: ${during.text}`);
    assertEquals(
      JSON.parse((await tools.call("bash", { command: "echo after" })).text).stdout,
      "after\n",
    );
    // The defence this probe asks for: the supervisor keeps starting commands.
    assertEquals(during.isError, false, during.text);
  } finally {
    await Deno.remove(ws, { recursive: true });
  }
});

/**
 * Probe (not named `*_test.ts`): run with
 * `CI=true deno test --no-prompt -A tests/_attacks/warm_shell_full_pipe_hang_attack.ts`.
 *
 * The hand-over writes the command's text into the warm shell's stdin before the command's
 * deadline timer is set, and the write has no deadline of its own. A background process holds
 * the read end of that pipe (opened through `/proc/<pid>/fd/0`), makes the shell leave its read
 * (its whole read length written), and fills the pipe: the shell is asleep (not stopped, not
 * traced, same directory), so the next `exec` takes it and its write never ends. Neither the
 * command's deadline nor a cancel acts (the supervisor's timer is not set yet); the host's
 * report deadline (deadline + 5 s) ends the whole session. Only the attacker's own session (and
 * the calls in it) suffer. Failed on a0d8c6b (7 s, "the whole sandbox was stopped"); now the
 * deadline and cancel give the hand-over up (the command ends at 2 s as timed out) and it passes.
 * Covered in the suite by `tests/deno/builtins/sandbox/supervisor/warm_shell_test.ts`.
 *
 * @module
 */
import { assert } from "@std/assert";
import { ToolRouter } from "@toolroute/toolroute";
import { builtinTools } from "@toolroute/toolroute/deno";

const ATTACK = `
pat="BASH_EXECUTION""_STRING; exec"; w=
# The warm shell starts in idle time, a moment after the last request: look again until then.
for i in $(seq 100); do
  for p in /proc/[0-9]*; do
    [ "\${p#/proc/}" = $$ ] && continue
    grep -qaF "$pat" $p/cmdline 2>/dev/null && w=\${p#/proc/}
  done
  [ -n "$w" ] && break; sleep 0.02
done
[ -n "$w" ] || { echo "no warm shell"; exit 0; }
exec 7</proc/$w/fd/0 8>/proc/$w/fd/0
{ printf '\\n%.0s' $(seq 2000); printf 'sleep 60\\n'; head -c 131072 /dev/zero | tr '\\0' '#'; } >&8
sleep 0.3
timeout 0.3 cat <&7 >/dev/null
head -c 65536 /dev/zero >&8
echo "filled $w $(grep State /proc/$w/status) $(readlink /proc/$w/fd/0) $(readlink /proc/$w/cwd) $(ls /proc/$w/task | wc -l)"
sleep 30
`;

Deno.test("a warm shell whose pipe a background process filled cannot hold a command past its deadline", async () => {
  const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_warm_full_" }));
  try {
    await using router = new ToolRouter({
      builtins: builtinTools({
        workspace: ws,
        commandTimeoutMs: 2_000,
        bash: { sandbox: "bwrap", limits: { processes: 64, memoryMiB: 256 } },
      }),
    });
    const tools = await router.expose({ builtins: ["bash"] });
    await tools.call("bash", { command: "true" });
    const started = JSON.parse(
      (await tools.call("bash", { action: "start", command: ATTACK })).text,
    );
    let log = "";
    for (let i = 0; i < 100 && !/filled|no warm/.test(log); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      log = (await tools.call("bash", { action: "logs", processId: started.processId })).text;
    }
    assert(/filled \d+/.test(log), `the attack ran: ${log}`);
    const t0 = performance.now();
    const result = await tools.call("bash", { command: "echo hi" });
    const ms = performance.now() - t0;
    console.log(`${log}\nafter ${Math.round(ms)} ms: ${result.text.slice(0, 300)}`);
    assert(ms < 4000, `the command's 2 s deadline held it ${Math.round(ms)} ms`);
  } finally {
    await Deno.remove(ws, { recursive: true });
  }
});

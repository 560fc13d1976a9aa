/**
 * Probe: run with
 * `CI=true deno test --no-prompt -A tests/_attacks/warm_shell_hijack_outlives_command_attack.ts`.
 *
 * The session's warm shell waits in `read -N 131072` on a pipe that any process of the session
 * can open through `/proc/<pid>/fd/0`. A process that writes the whole 128 Ki characters makes
 * the shell `eval` its text at once, without any `exec` asking for it. The reap at a command's
 * (or a background process's) end spares the warm shell's pid, so that hijacked shell ran on
 * after the end of the command or background process that planted it: a process of the session
 * nobody listed, counted or reaped (it ran until the next ordinary `exec` took or killed it, or
 * the session closed), with its own `sleep` children re-killed by each reap but not itself.
 * Vectors: (a) an `exec` over 64 KiB (cold, while the warm shell kept waiting beside it);
 * (b) a background process (`action: "start"`) that ends after the hijack. Both failed on main
 * (a0d8c6b: the counter ran on); now the reap at the end of the last command or background
 * process also ends a shell that waited beside them (`warmShell().discard()`), and both pass.
 * Covered in the suite by `tests/deno/builtins/sandbox/supervisor/warm_shell_test.ts`.
 *
 * @module
 */
import { assert, assertEquals } from "@std/assert";
import { ToolRouter } from "@toolroute/toolroute";
import { builtinTools } from "@toolroute/toolroute/deno";

// Finds the waiting warm shell (its command line holds the read of BASH_EXECUTION_STRING; the
// pattern is split so that this command's own line does not match), then writes 128 Ki
// characters into its stdin: 2000 newlines (past the cgroup entry and prefix it skips), a loop
// that bumps a counter in `alive` every 0.1 s, then comments.
const HIJACK = `
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
{ printf '\\n%.0s' $(seq 2000)
  printf 'n=0; while [ $n -lt 40 ]; do n=$((n+1)); echo $n > alive; sleep 0.1; done\\n'
  head -c 131072 /dev/zero | tr '\\0' '#'
} > /proc/$w/fd/0 2>/dev/null
for i in $(seq 100); do [ -s alive ] && break; sleep 0.03; done
echo "hijacked $w: $(cat alive 2>/dev/null)"
`;

async function counter(ws: string): Promise<number> {
  try {
    return Number((await Deno.readTextFile(`${ws}/alive`)).trim()) || 0;
  } catch {
    return 0;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// The warm shell starts in idle time, a moment after the last request (as between a model's
// turns): waits until it waits in `ws`, through the host's /proc.
async function warmShellWaits(ws: string): Promise<void> {
  for (let i = 0; i < 80; i++) {
    for (const entry of Deno.readDirSync("/proc")) {
      try {
        const line = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`);
        if (
          line.includes("BASH_EXECUTION_STRING") &&
          Deno.readLinkSync(`/proc/${entry.name}/cwd`) === ws
        ) return;
      } catch {
        // Not a process, or gone meanwhile.
      }
    }
    await sleep(25);
  }
}

for (const vector of ["an exec over 64 KiB", "a background process"]) {
  Deno.test(`a warm shell hijacked by ${vector} does not outlive its end`, async () => {
    const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_warm_hijack_" }));
    try {
      await using router = new ToolRouter({
        builtins: builtinTools({
          workspace: ws,
          commandTimeoutMs: 10_000,
          bash: { sandbox: "bwrap", limits: { processes: 64, memoryMiB: 256 } },
        }),
      });
      const tools = await router.expose({ builtins: ["bash"] });
      // The first command of the session: the warm shell is started after it.
      assertEquals(JSON.parse((await tools.call("bash", { command: "true" })).text).exitCode, 0);
      let report: string;
      if (vector === "a background process") {
        const started = await tools.call("bash", { action: "start", command: HIJACK });
        const id = JSON.parse(started.text).processId;
        for (let i = 0; i < 100; i++) {
          const status = JSON.parse(
            (await tools.call("bash", { action: "status", processId: id })).text,
          );
          if (!status.running) break;
          await sleep(50);
        }
        report = (await tools.call("bash", { action: "logs", processId: id })).text;
      } else {
        await warmShellWaits(ws);
        const padded = `${HIJACK}\n# ${"x".repeat(70_000)}\n`;
        report = JSON.parse((await tools.call("bash", { command: padded })).text).stdout;
      }
      // Its end was reported (and its reap done): nothing it started runs now.
      await sleep(400);
      const before = await counter(ws);
      await sleep(800);
      const after = await counter(ws);
      console.log(`${vector}: ${report.trim()}; counter ${before} -> ${after}`);
      // The attack ran: the command found the warm shell and wrote into its stdin.
      assert(/hijacked \d+/.test(report), `the attack found no warm shell: ${report}`);
      // The defence: no process of the ended command or background process runs on.
      assertEquals(after, before, "the hijacked warm shell ran on after its planter's end");
      // The written text comes before the next command's (accepted: the session's own model).
      const next = await tools.call("bash", { command: "echo ok", timeoutMs: 1000 });
      console.log(`the next command: ${next.text.slice(0, 200)}`);
    } finally {
      await Deno.remove(ws, { recursive: true });
    }
  });
}

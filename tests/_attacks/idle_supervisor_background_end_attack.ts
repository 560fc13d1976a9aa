/**
 * Probe (not named `*_test.ts`): run with
 * `CI=true deno test --no-prompt -A tests/_attacks/idle_supervisor_background_end_attack.ts`.
 *
 * With no request served and no work held, the supervisor waits for its next request in a
 * blocking read on its main thread (no timers, no child reaps, no output forwarding meanwhile).
 * A background process (bash tool `start`) and its children end, print and are reaped while the
 * host sends nothing; a command's deadline and its leftovers' reap happen while nothing else is
 * sent. Held on a0d8c6b: a background process keeps its `spawn` request served (so the input is
 * read asynchronously) until it ends and its output and exit are sent; an `exec` is served until
 * its exit was sent, after its deadline and reap.
 *
 * @module
 */
import { assert, assertEquals } from "@std/assert";
import { ToolRouter } from "@toolroute/toolroute";
import { builtinTools } from "@toolroute/toolroute/deno";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("an idle supervisor still forwards a background process's output and end, and enforces deadlines", async () => {
  const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_idle_sup_" }));
  try {
    await using router = new ToolRouter({
      builtins: builtinTools({
        workspace: ws,
        commandTimeoutMs: 1_000,
        bash: { sandbox: "bwrap", limits: { processes: 64, memoryMiB: 256 } },
      }),
    });
    const tools = await router.expose({ builtins: ["bash"] });
    await tools.call("bash", { command: "true" });
    let checks = 0;
    // A background process whose children outlive it briefly, then it ends while the host is
    // silent: its output and end must arrive without any further request.
    const started = JSON.parse(
      (await tools.call("bash", {
        action: "start",
        command: "(sleep 0.3; echo child) & sleep 0.5; echo parent",
      })).text,
    );
    const t0 = Date.now();
    const seen: string[] = [];
    // Observe the host-side view only (status/logs read the host's table: no supervisor request).
    for (let i = 0; i < 40; i++) {
      await sleep(50);
      const status = JSON.parse(
        (await tools.call("bash", { action: "status", processId: started.processId })).text,
      );
      checks++;
      if (!status.running) {
        seen.push(`ended after ${Date.now() - t0} ms`);
        break;
      }
    }
    const logs = (await tools.call("bash", { action: "logs", processId: started.processId })).text;
    console.log(seen, logs);
    assert(checks > 0);
    assertEquals(seen.length, 1, "the background process's end never reached the host");
    assert(logs.includes("child") && logs.includes("parent"), logs);
    // A command whose deadline passes while nothing else is sent.
    const t1 = Date.now();
    const late = JSON.parse((await tools.call("bash", { command: "sleep 5 & sleep 5" })).text);
    assertEquals(late.timedOut, true);
    assert(Date.now() - t1 < 2500, `deadline enforced late: ${Date.now() - t1} ms`);
    const left = JSON.parse((await tools.call("bash", { command: "pgrep -c sleep; true" })).text);
    assertEquals(left.stdout.trim(), "0");
  } finally {
    await Deno.remove(ws, { recursive: true });
  }
});

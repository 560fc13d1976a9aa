import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { ToolRouter } from "../../../../src/core/tool_router.ts";
import { builtinTools } from "../../../../src/deno/builtins/builtin_tools.ts";
import {
  MAX_RUNNING_PROCESSES,
  ProcessTable,
} from "../../../../src/deno/builtins/bash/process_table.ts";
import { resolveBuiltinContext } from "../../../../src/deno/builtins/builtin_context.ts";
import { bashFixture, bashUnderTest, leftovers, uniqueSleep } from "../_bash_fixture.ts";
import { skipWithoutBwrap } from "../../../_helpers/bwrap.ts";

async function until(check: () => boolean | Promise<boolean>, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

for (const sandbox of ["none", "bwrap"] as const) {
  Deno.test(
    `bash start, write, logs, status, list and stop manage a background process (${sandbox})`,
    { ignore: sandbox === "bwrap" && skipWithoutBwrap() },
    async () => {
      await using fx = await bashFixture();
      await using bash = bashUnderTest({ workspace: fx.workspace, bash: { sandbox } });
      const started = await bash.json({ action: "start", command: "echo ready; cat" });
      assertEquals(started.processId, "p1");
      assertEquals(started.running, true);
      await until(() => bash.processes.get("p1").logs().text === "ready\n");
      const written = await bash.json({ action: "write", processId: "p1", input: "hello\n" });
      assertEquals(written, { processId: "p1", bytesWritten: 6 });
      await until(() => bash.processes.get("p1").info().logEnd === 12);
      const logs = await bash.json({ action: "logs", processId: "p1", offset: 6 });
      assertEquals(logs, { offset: 6, nextOffset: 12, text: "hello\n", droppedChars: 0 });
      const status = await bash.json({ action: "status", processId: "p1" });
      assertEquals(status.running, true);
      const list = await bash.json({ action: "list" });
      assertEquals((list.processes as unknown[]).length, 1);
      const stopped = await bash.json({ action: "stop", processId: "p1" });
      assertEquals(stopped.running, false);
      assertEquals(stopped.exitCode, 143);
      const late = await bash.call({ action: "write", processId: "p1", input: "more\n" });
      assertEquals(late.code, "tool_error");
      assertStringIncludes(late.text, "has ended");
    },
  );
}

Deno.test("bash logs keep only processLogChars characters and report what was dropped", async () => {
  await using fx = await bashFixture();
  await using bash = bashUnderTest({
    workspace: fx.workspace,
    bash: { sandbox: "none" },
    processLogChars: 100,
  });
  await bash.json({ action: "start", command: "seq 1 1000" });
  await until(async () =>
    (await bash.json({ action: "status", processId: "p1" })).running === false
  );
  await bash.processes.get("p1").finished;
  const logs = await bash.json({ action: "logs", processId: "p1", offset: 0 });
  const text = String(logs.text);
  assertEquals(text.length, 100);
  assert(text.endsWith("999\n1000\n"));
  assertEquals(logs.droppedChars, 3893 - 100);
  assertEquals(logs.nextOffset, 3893);
  const limited = await bash.json({ action: "logs", processId: "p1", offset: 3888, limit: 3 });
  assertEquals(limited.text, "100");
  const status = await bash.json({ action: "status", processId: "p1" });
  assertEquals(status.exitCode, 0);
});

Deno.test("bash status of an unknown process names the known ones", async () => {
  await using fx = await bashFixture();
  await using bash = bashUnderTest({ workspace: fx.workspace, bash: { sandbox: "none" } });
  const none = await bash.call({ action: "status", processId: "p9" });
  assertEquals(none.code, "tool_error");
  assertStringIncludes(none.text, 'action "start"');
  await bash.json({ action: "start", command: "true" });
  assertStringIncludes((await bash.call({ action: "stop", processId: "p7" })).text, "Known: p1");
});

Deno.test("ProcessTable close() kills every background process and its children", async () => {
  await using fx = await bashFixture();
  const sleep = uniqueSleep();
  {
    await using bash = bashUnderTest({ workspace: fx.workspace, bash: { sandbox: "none" } });
    await bash.json({ action: "start", command: `sleep ${sleep} & sleep ${sleep}` });
    await bash.json({ action: "start", command: `trap '' TERM; sleep ${sleep}` });
    await until(async () => (await leftovers(`sleep ${sleep}`, 0)).length >= 3);
  }
  assertEquals(await leftovers(`sleep ${sleep}`), []);
});

Deno.test("ProcessTable refuses to start after close()", async () => {
  await using fx = await bashFixture();
  await using bash = bashUnderTest({ workspace: fx.workspace, bash: { sandbox: "none" } });
  await bash.processes.close();
  const result = await bash.call({ action: "start", command: "true" });
  assertEquals(result.code, "tool_error");
  assertStringIncludes(result.text, "closed");
});

const HOST_CASES = [
  ["none", "wait", "background processes die when the host process is killed with SIGKILL"],
  ["bwrap", "wait", "background processes die when the host process is killed with SIGKILL"],
  ["none", "exit", "background processes die when the host process exits normally"],
  ["none", "exit-during-exec", "a running exec command dies when the host process exits normally"],
] as const;
for (const [sandbox, mode, title] of HOST_CASES) {
  Deno.test(
    `${title} (${sandbox})`,
    { ignore: sandbox === "bwrap" && skipWithoutBwrap() },
    async () => {
      await using fx = await bashFixture();
      const sleep = uniqueSleep();
      const host = new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--no-prompt",
          "-A",
          new URL("../_host_exit_main.ts", import.meta.url).pathname,
          fx.workspace,
          sandbox,
          `sleep ${sleep}`,
          mode,
        ],
        stdin: "piped",
        stdout: "piped",
        stderr: "null",
      }).spawn();
      const reader = host.stdout.pipeThrough(new TextDecoderStream()).getReader();
      assertEquals((await reader.read()).value, "started\n");
      await until(async () => (await leftovers(`sleep ${sleep}`, 0)).length > 0);
      if (mode === "wait") host.kill("SIGKILL");
      await host.stdin.close().catch(() => {});
      await host.status;
      await reader.cancel();
      assertEquals(await leftovers(`sleep ${sleep}`, 4000), []);
    },
  );
}

Deno.test("disposing the router (await using) kills the background processes of every context", async () => {
  await using fx = await bashFixture();
  const sleep = uniqueSleep();
  const second = `${fx.root}/second`;
  await Deno.mkdir(second);
  {
    await using router = new ToolRouter({
      builtins: builtinTools({ workspace: fx.workspace, bash: { sandbox: "none" } }),
    });
    const first = await router.expose({ builtins: ["bash"] });
    const other = await router.expose({
      builtins: ["bash"],
      context: { workspace: second, bash: { sandbox: "none" } },
    });
    for (const tools of [first, other]) {
      const started = await tools.call("bash", { action: "start", command: `sleep ${sleep}` });
      assertEquals(started.isError, false, started.text);
    }
    await until(async () => (await leftovers(`sleep ${sleep}`, 0)).length >= 2);
  }
  assertEquals(await leftovers(`sleep ${sleep}`), []);
});

Deno.test("closeContext() kills one context's processes; other contexts keep theirs and never see them", async () => {
  await using fx = await bashFixture();
  const [mine, theirs] = [uniqueSleep(), uniqueSleep()];
  const second = `${fx.root}/second`;
  await Deno.mkdir(second);
  const contextA = { workspace: fx.workspace, bash: { sandbox: "none" as const } };
  const contextB = { workspace: second, bash: { sandbox: "none" as const } };
  await using builtins = builtinTools(contextA);
  const router = new ToolRouter({ builtins });
  const a = await router.expose({ builtins: ["bash"], context: contextA });
  const b = await router.expose({ builtins: ["bash"], context: contextB });
  const [pwdA, pwdB] = await Promise.all([
    a.invoke("bash", { command: "sleep 0.2; pwd" }),
    b.invoke("bash", { command: "sleep 0.2; pwd" }),
  ]);
  assertEquals(JSON.parse(pwdA).stdout, `${fx.workspace}\n`);
  assertEquals(JSON.parse(pwdB).stdout, `${second}\n`);
  await a.invoke("bash", { action: "start", command: `sleep ${mine}` });
  await b.invoke("bash", { action: "start", command: `sleep ${theirs}` });
  assertEquals(JSON.parse(await b.invoke("bash", { action: "list" })).processes.length, 1);
  assertStringIncludes(
    JSON.parse(await b.invoke("bash", { action: "list" })).processes[0].command,
    theirs,
  );
  await builtins.closeContext(contextA);
  assertEquals(await leftovers(`sleep ${mine}`), []);
  assert((await leftovers(`sleep ${theirs}`, 0)).length > 0, "the other context's process runs");
});

Deno.test("bash start refuses a 17th running process of one context", async () => {
  await using fx = await bashFixture();
  await using bash = bashUnderTest({ workspace: fx.workspace, bash: { sandbox: "none" } });
  for (let i = 0; i < MAX_RUNNING_PROCESSES; i++) {
    assertEquals((await bash.call({ action: "start", command: "cat" })).isError, false);
  }
  const refused = await bash.call({ action: "start", command: "cat" });
  assertEquals(refused.code, "tool_error");
  assertStringIncludes(refused.text, "stop one first");
  await bash.json({ action: "stop", processId: "p1" });
  assertEquals((await bash.call({ action: "start", command: "cat" })).isError, false);
});

Deno.test("bash write to a process that never reads its stdin ends at the deadline, and refuses a second write meanwhile", async () => {
  await using fx = await bashFixture();
  const sleep = uniqueSleep();
  await using bash = bashUnderTest({
    workspace: fx.workspace,
    bash: { sandbox: "none" },
    commandTimeoutMs: 300,
  });
  const { processId } = await bash.json({ action: "start", command: `sleep ${sleep}` });
  const started = performance.now();
  const first = await bash.call({ action: "write", processId, input: "x".repeat(900_000) });
  assertEquals([first.isError, first.code], [true, "timeout"]);
  assertStringIncludes(first.text, "did not take its input within 300 ms");
  assert(performance.now() - started < 5000);
  const second = await bash.call({ action: "write", processId, input: "y" });
  assertEquals(second.code, "tool_error");
  assertStringIncludes(second.text, "has not read the previous input");
  await bash.json({ action: "stop", processId });
  assertEquals(await leftovers(`sleep ${sleep}`), []);
});

Deno.test("ProcessTable close() returns only once the work that follows a process's end is done", async () => {
  const workspace = await Deno.makeTempDir();
  const table = new ProcessTable(resolveBuiltinContext({ workspace }));
  // As `containWhenEnded` registers a background process's last disk measure and walk.
  let done = false;
  table.afterEnd(new Promise((resolve) => setTimeout(resolve, 200)).then(() => done = true));
  let failed = false;
  table.afterEnd(Promise.reject(new Error("a walk that failed")).catch(() => failed = true));
  await table.close();
  assert(done, "close() returned before the work was done");
  assert(failed);
  await Deno.remove(workspace, { recursive: true });
});

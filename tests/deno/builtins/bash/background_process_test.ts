import { assert, assertEquals, assertMatch, assertRejects } from "@std/assert";
import { ToolError } from "../../../../src/core/tool_error.ts";
import { BackgroundProcess } from "../../../../src/deno/builtins/bash/background_process.ts";
import { bashInvocation } from "../../../../src/deno/builtins/bash/bash_invocation.ts";
import { leftovers } from "../_bash_fixture.ts";

function start(command: string, logChars = 1000): BackgroundProcess {
  const invocation = bashInvocation({
    command,
    cwd: "/",
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
    background: true,
  });
  return new BackgroundProcess("p1", invocation, logChars);
}

async function waitForLog(process: BackgroundProcess, text: string): Promise<void> {
  const deadline = Date.now() + 3000;
  while (!process.logs().text.includes(text)) {
    if (Date.now() > deadline) throw new Error(`no "${text}" in ${process.logs().text}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

Deno.test("BackgroundProcess info() reports id, command, start time and the log's end", async () => {
  const process = start("echo hello; exit 3");
  await process.finished;
  const info = process.info();
  assertEquals(info.processId, "p1");
  assertEquals(info.command, "echo hello; exit 3");
  assertEquals(info.running, false);
  assertEquals(info.exitCode, 3);
  assertEquals(info.logEnd, 6);
  assertMatch(info.startedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assertEquals(process.settled, true);
  assertEquals(process.logs(), { offset: 0, nextOffset: 6, text: "hello\n", droppedChars: 0 });
});

Deno.test("BackgroundProcess write() feeds stdin and the answer appears in the logs", async () => {
  const process = start('while read -r line; do echo "got $line"; done');
  try {
    assertEquals(process.running, true);
    assertEquals(process.info().exitCode, null);
    assertEquals(await process.write("ping\n", { timeoutMs: 2000 }), 5);
    await waitForLog(process, "got ping\n");
    assertEquals(await process.write("é\n", { timeoutMs: 2000 }), 3, "counts bytes, not chars");
    await waitForLog(process, "got é\n");
    assertEquals(process.logs(9).text, "got é\n");
  } finally {
    await process.stop();
  }
});

Deno.test("BackgroundProcess logs() interleaves stderr and keeps only logChars characters", async () => {
  const process = start("sleep 0.05; echo out; echo err >&2; seq 1000 1100", 20);
  await process.finished;
  const slice = process.logs();
  assertEquals(slice.text.length, 20);
  // stdout and stderr are two pipes read apart: under load "err" may land after the numbers.
  assert(slice.text.includes("1099\n1100\n"), JSON.stringify(slice.text));
  assertEquals(slice.nextOffset, process.info().logEnd);
  assertEquals(process.logs(0).droppedChars, slice.offset);
  assertEquals(process.info().logEnd, "out\nerr\n".length + 101 * 5, "stderr is in the log");
});

Deno.test("BackgroundProcess stop() ends with SIGTERM first: exit code 143", async () => {
  // "ready" is printed once `sleep` runs, so the SIGTERM finds it (a SIGTERM that lands before
  // the shell forks it would wait for it). The grace period is long: a loaded machine that
  // stalls for the default 2 s would end in SIGKILL (137), and that says nothing about SIGTERM.
  const process = start("sleep 30 & echo ready; wait");
  await waitForLog(process, "ready");
  await process.stop(25_000);
  assertEquals(process.running, false);
  assertEquals(process.settled, true);
  assertEquals(process.info().exitCode, 143);
});

Deno.test("BackgroundProcess stop(0) sends SIGKILL at once, also to a process ignoring SIGTERM", async () => {
  const tag = `toolroute_bg_${crypto.randomUUID().slice(0, 8)}`;
  const process = start(`trap '' TERM; echo ready; exec -a ${tag} sleep 30`);
  await waitForLog(process, "ready");
  const started = Date.now();
  await process.stop(0);
  assert(Date.now() - started < 1500, "did not wait for a grace period");
  assertEquals(process.info().exitCode, 137);
  assertEquals(await leftovers(tag), []);
});

Deno.test("BackgroundProcess stop() leaves no child of its process group behind", async () => {
  const tag = `toolroute_bg_${crypto.randomUUID().slice(0, 8)}`;
  const process = start(`(exec -a ${tag} sleep 30) & echo started`);
  await waitForLog(process, "started");
  await process.stop(100);
  assertEquals(process.settled, true);
  assertEquals(await leftovers(tag), []);
});

Deno.test("BackgroundProcess stop() of a process that already ended returns at once", async () => {
  const process = start("true");
  await process.finished;
  const started = Date.now();
  await process.stop();
  assert(Date.now() - started < 1500, "no grace period for a process that ended");
  assertEquals(process.info().exitCode, 0);
});

Deno.test("BackgroundProcess write() to a process that never reads ends at the deadline, then refuses a second write", async () => {
  const process = start("sleep 30");
  try {
    const big = "x".repeat(1 << 20);
    const timeout = await assertRejects(
      () => process.write(big, { timeoutMs: 100 }),
      ToolError,
      "did not take its input within 100 ms",
    );
    assertEquals(timeout.code, "timeout");
    const busy = await assertRejects(
      () => process.write("more\n", { timeoutMs: 100 }),
      ToolError,
      "has not read the previous input yet",
    );
    assertEquals(busy.code, "tool_error");
  } finally {
    await process.stop(0);
  }
});

Deno.test("BackgroundProcess write() ends with the signal's reason when the call is aborted", async () => {
  const process = start("sleep 30");
  try {
    const controller = new AbortController();
    const reason = new ToolError("aborted", "The call was aborted");
    setTimeout(() => controller.abort(reason), 50);
    const error = await assertRejects(
      () => process.write("x".repeat(1 << 20), { timeoutMs: 5000, signal: controller.signal }),
    );
    assertEquals(error, reason);
  } finally {
    await process.stop(0);
  }
});

Deno.test("BackgroundProcess of a command that exits at once logs only its own output", async () => {
  // The host watchdog's subshell used to run the shell's exit trap after the shell was gone and
  // print "/proc/N/stat: No such file or directory" into the log, about once in 30 runs.
  for (let i = 0; i < 60; i++) {
    const process = start("echo hello; exit 3");
    await process.finished;
    assertEquals(process.logs().text, "hello\n", `run ${i}`);
  }
});

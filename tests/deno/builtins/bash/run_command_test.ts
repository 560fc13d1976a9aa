import { assert, assertEquals, assertRejects, assertStringIncludes } from "@std/assert";
import { ToolError } from "../../../../src/core/tool_error.ts";
import { bashInvocation } from "../../../../src/deno/builtins/bash/bash_invocation.ts";
import { runCommand } from "../../../../src/deno/builtins/bash/run_command.ts";
import { leftovers } from "../_bash_fixture.ts";

function exec(command: string, cwd = "/", env: Record<string, string> = {}) {
  return bashInvocation({
    command,
    cwd,
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", ...env },
    background: false,
  });
}

function limits(overrides: { timeoutMs?: number; maxChars?: number; signal?: AbortSignal } = {}) {
  return {
    timeoutMs: overrides.timeoutMs ?? 10_000,
    maxChars: overrides.maxChars ?? 10_000,
    signal: overrides.signal ?? new AbortController().signal,
  };
}

Deno.test("runCommand() returns the exit code and both streams of a command run to its end", async () => {
  const result = await runCommand(exec("echo out; echo err >&2; exit 7"), limits());
  assertEquals(result, { exitCode: 7, stdout: "out\n", stderr: "err\n", timedOut: false });
});

Deno.test("runCommand() runs in the invocation's directory with only its environment", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_run_" }));
  try {
    const result = await runCommand(
      exec('pwd; echo "${GREETING:-unset} ${HOME:-nohome}"', dir, { GREETING: "hi" }),
      limits(),
    );
    assertEquals(result.stdout, `${dir}\nhi nohome\n`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("runCommand() gives the command a closed stdin", async () => {
  const result = await runCommand(exec("cat; echo end"), limits({ timeoutMs: 2000 }));
  assertEquals(result.stdout, "end\n");
  assertEquals(result.timedOut, false);
});

Deno.test("runCommand() kills the command at the deadline and reports timedOut with 137", async () => {
  const started = Date.now();
  const result = await runCommand(exec("echo before; sleep 20"), limits({ timeoutMs: 150 }));
  assertEquals(result.timedOut, true);
  assertEquals(result.exitCode, 137);
  assertEquals(result.stdout, "before\n");
  assert(Date.now() - started < 3000, "the run ended soon after the deadline");
});

Deno.test("runCommand() cuts long output in the middle, both streams within maxChars", async () => {
  const result = await runCommand(
    exec("seq 1 5000; seq 1 5000 >&2"),
    limits({ maxChars: 400 }),
  );
  assertEquals(result.exitCode, 0);
  assert(result.stdout.startsWith("1\n2\n"), "keeps the head of stdout");
  assert(result.stdout.endsWith("4999\n5000\n"), "keeps the tail of stdout");
  assertStringIncludes(result.stdout, "characters truncated");
  assertStringIncludes(result.stderr, "characters truncated");
  assert(result.stdout.length + result.stderr.length < 400 + 200, "stays near the limit");
});

Deno.test("runCommand() lets a short stream leave its share of the budget to the other", async () => {
  const result = await runCommand(exec("printf '%0300d' 0; echo x >&2"), limits({ maxChars: 400 }));
  assertEquals(result.stdout, "0".repeat(300));
  assertEquals(result.stderr, "x\n");
});

Deno.test("runCommand() with an already aborted signal throws aborted and runs nothing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "toolroute_run_" });
  try {
    const controller = new AbortController();
    controller.abort();
    const error = await assertRejects(
      () => runCommand(exec("touch ran", dir), limits({ signal: controller.signal })),
      ToolError,
      "aborted",
    );
    assertEquals(error.code, "aborted");
    assertEquals(await Array.fromAsync(Deno.readDir(dir)), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("runCommand() aborted while running kills the command and throws aborted", async () => {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 100);
  const started = Date.now();
  const error = await assertRejects(
    () => runCommand(exec("sleep 20"), limits({ signal: controller.signal })),
    ToolError,
  );
  clearTimeout(timer);
  assertEquals(error.code, "aborted");
  assertEquals(error.message, "The bash command was aborted and its processes were killed");
  assert(Date.now() - started < 3000, "the run ended soon after the abort");
});

Deno.test("runCommand() kills a child that left the session and does not wait for its pipes", async () => {
  const tag = `toolroute_run_${crypto.randomUUID().slice(0, 8)}`;
  const started = Date.now();
  const result = await runCommand(
    exec(`setsid bash -c 'exec -a ${tag} sleep 20' & echo started; sleep 20`),
    limits({ timeoutMs: 200 }),
  );
  assertEquals(result.timedOut, true);
  assertEquals(result.stdout, "started\n");
  assert(Date.now() - started < 3000, `ended after ${Date.now() - started} ms`);
  assertEquals(await leftovers(tag), []);
});

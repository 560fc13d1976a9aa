import { assert, assertEquals, assertMatch, assertStringIncludes, assertThrows } from "@std/assert";
import { createBashTool } from "../../../../src/deno/builtins/bash/bash.ts";
import { resolveBuiltinContext } from "../../../../src/deno/builtins/builtin_context.ts";
import { ProcessTable } from "../../../../src/deno/builtins/bash/process_table.ts";
import { SandboxSessions } from "../../../../src/deno/builtins/sandbox/sandbox_sessions.ts";
import { bashFixture, bashUnderTest, leftovers, uniqueSleep } from "../_bash_fixture.ts";
import { skipWithoutBwrap } from "../../../_helpers/bwrap.ts";

Deno.test("bash exec runs in the workspace and returns exit code, stdout and stderr", async () => {
  await using fx = await bashFixture();
  await using bash = bashUnderTest({ workspace: fx.workspace, bash: { sandbox: "none" } });
  const result = await bash.json({ command: "pwd; echo oops >&2" });
  assertEquals(result, {
    exitCode: 0,
    stdout: `${fx.workspace}\n`,
    stderr: "oops\n",
    timedOut: false,
  });
});

Deno.test("bash exec reports a non-zero exit as a normal result, not an error", async () => {
  await using fx = await bashFixture();
  await using bash = bashUnderTest({ workspace: fx.workspace, bash: { sandbox: "none" } });
  const result = await bash.call({ action: "exec", command: "echo partial; exit 3" });
  assertEquals(result.isError, false);
  assertEquals(JSON.parse(result.text).exitCode, 3);
  assertEquals(JSON.parse(result.text).stdout, "partial\n");
});

Deno.test("bash exec closes stdin: a command reading it sees end of input", async () => {
  await using fx = await bashFixture();
  await using bash = bashUnderTest({ workspace: fx.workspace, bash: { sandbox: "none" } });
  const result = await bash.json({ command: "cat; echo done", timeoutMs: 5000 });
  assertEquals(result.stdout, "done\n");
  assertEquals(result.timedOut, false);
});

Deno.test("bash exec of a command that prints forever keeps head and tail within the limit", async () => {
  await using fx = await bashFixture();
  await using bash = bashUnderTest({
    workspace: fx.workspace,
    bash: { sandbox: "none" },
    outputMaxChars: 1000,
  });
  const result = await bash.json({ command: "yes", timeoutMs: 300 });
  const stdout = String(result.stdout);
  assertEquals(result.timedOut, true);
  assertMatch(stdout, /^(y\n){250}\n\[\.\.\. \d+ characters truncated \.\.\.\]\n(y\n){250}$/);
});

Deno.test("bash exec keeps stdout and stderr together within outputMaxChars", async () => {
  await using fx = await bashFixture();
  await using bash = bashUnderTest({
    workspace: fx.workspace,
    bash: { sandbox: "none" },
    outputMaxChars: 100,
  });
  const both = await bash.json({ command: "seq 1 500; seq 1 500 >&2" });
  const kept = (text: unknown) =>
    String(text).replace(/\n\[\.\.\. \d+ characters truncated \.\.\.\]\n/, "");
  assertEquals(kept(both.stdout).length + kept(both.stderr).length, 100);
  const quiet = await bash.json({ command: "seq 1 500; echo oops >&2" });
  assertEquals(quiet.stderr, "oops\n");
  assertEquals(kept(quiet.stdout).length, 95);
});

Deno.test("bash exec timeout kills background children holding the pipes, leaving nothing", async () => {
  await using fx = await bashFixture();
  await using bash = bashUnderTest({ workspace: fx.workspace, bash: { sandbox: "none" } });
  const sleep = uniqueSleep();
  const started = performance.now();
  const result = await bash.json({
    command: `sleep ${sleep} & sleep ${sleep} & sleep 5`,
    timeoutMs: 200,
  });
  const elapsed = performance.now() - started;
  assertEquals(result.timedOut, true);
  assertEquals(result.exitCode, 137);
  assert(elapsed < 3000, `returned after ${Math.round(elapsed)} ms`);
  assertEquals(await leftovers(`sleep ${sleep}`), []);
});

Deno.test("bash exec ends background children that outlive the command, also when detached from the pipes", async () => {
  await using fx = await bashFixture();
  await using bash = bashUnderTest({ workspace: fx.workspace, bash: { sandbox: "none" } });
  const sleep = uniqueSleep();
  const result = await bash.json({ command: `sleep ${sleep} >/dev/null 2>&1 & echo started` });
  assertEquals(result.stdout, "started\n");
  assertEquals(await leftovers(`sleep ${sleep}`), []);
});

Deno.test("bash exec abort of the call's signal kills the command's process group", async () => {
  await using fx = await bashFixture();
  await using bash = bashUnderTest({ workspace: fx.workspace, bash: { sandbox: "none" } });
  const sleep = uniqueSleep();
  const controller = new AbortController();
  const pending = bash.tool.execute(
    { command: `sleep ${sleep} & sleep ${sleep}` },
    { signal: controller.signal },
  ) as Promise<unknown>;
  setTimeout(() => controller.abort(), 200);
  const error = await pending.then(() => undefined, (e) => e);
  assertEquals(error?.code, "aborted");
  assertEquals(await leftovers(`sleep ${sleep}`), []);
});

Deno.test("bash exec passes only the context's environment: a host secret is not visible", async () => {
  await using fx = await bashFixture();
  Deno.env.set("TOOLROUTE_TEST_SECRET", "s3cr3t-value");
  try {
    await using bash = bashUnderTest({
      workspace: fx.workspace,
      bash: { sandbox: "none", env: ["PATH", "LANG"] },
    });
    const stdout = String((await bash.json({ command: "env" })).stdout);
    assert(!stdout.includes("s3cr3t-value"), "the secret's value leaked");
    assert(!stdout.includes("TOOLROUTE_TEST_SECRET"), "the secret's name leaked");
    assertStringIncludes(stdout, `PATH=${Deno.env.get("PATH")}`);
  } finally {
    Deno.env.delete("TOOLROUTE_TEST_SECRET");
  }
});

Deno.test(
  "bash with sandbox none can read the host's environment through /proc (documented: env scrubbing is not confinement)",
  { ignore: skipWithoutBwrap() },
  async () => {
    await using fx = await bashFixture();
    // The allowed names, and what bash sets by itself.
    const allowed = ["PATH", "HOME", "LANG", "TERM", "PWD", "OLDPWD", "SHLVL", "_"];
    const hostOnly = Object.entries(Deno.env.toObject())
      .filter(([name]) => !allowed.includes(name))
      .map(([name, value]) => `${name}=${value}`);
    await using bash = bashUnderTest({ workspace: fx.workspace, bash: { sandbox: "none" } });
    const own = String((await bash.json({ command: "env" })).stdout).split("\n");
    const viaProc = await bash.json({ command: "tr '\\0' '\\n' < /proc/$PPID/environ" });
    const seen = String(viaProc.stdout).split("\n");
    assert(hostOnly.some((pair) => seen.includes(pair)), "the host's start-up environment");
    assert(
      !hostOnly.some((pair) => own.includes(pair)),
      "the command's own environment is scrubbed",
    );
    await using sandboxed = bashUnderTest({ workspace: fx.workspace, bash: { sandbox: "bwrap" } });
    const confined = await sandboxed.json({ command: "cat /proc/[0-9]*/environ | tr '\\0' '\\n'" });
    const inside = String(confined.stdout).split("\n");
    assert(!hostOnly.some((pair) => inside.includes(pair)), "the sandbox shows no host process");
  },
);

Deno.test("bash with sandbox none can read a file outside the workspace (documented: not confined)", async () => {
  await using fx = await bashFixture();
  await using bash = bashUnderTest({ workspace: fx.workspace, bash: { sandbox: "none" } });
  const result = await bash.json({ command: `cat ${fx.marker}` });
  assertEquals(result.stdout, "OUTSIDE-MARKER\n");
  assertStringIncludes(bash.tool.description, "NOT sandboxed");
  assertStringIncludes(bash.tool.description, "anything the operating-system user can");
});

Deno.test("bash refuses a cwd outside the workspace: traversal, sibling prefix, symlink, read-only root", async () => {
  await using fx = await bashFixture();
  await Deno.symlink(fx.outside, `${fx.workspace}/escape`);
  await using bash = bashUnderTest({
    workspace: fx.workspace,
    readOnlyRoots: [fx.readOnly],
    bash: { sandbox: "none" },
  });
  for (const cwd of ["..", fx.sibling, "../ws_evil", "escape", fx.outside, fx.readOnly]) {
    const result = await bash.call({ command: "pwd", cwd });
    assertEquals(result.code, "permission_denied", `cwd ${cwd}: ${result.text}`);
    assert(!result.text.includes(fx.outside) || cwd === fx.outside, result.text);
  }
  await Deno.mkdir(`${fx.workspace}/sub`);
  assertEquals((await bash.json({ command: "pwd", cwd: "sub" })).stdout, `${fx.workspace}/sub\n`);
});

Deno.test("bash validates the action's parameters with a hint of a valid call", async () => {
  await using fx = await bashFixture();
  await using bash = bashUnderTest({ workspace: fx.workspace, bash: { sandbox: "none" } });
  const noCommand = await bash.call({ action: "exec" });
  assertEquals(noCommand.code, "invalid_arguments");
  assertStringIncludes(noCommand.text, '"command"');
  const noId = await bash.call({ action: "logs" });
  assertEquals(noId.code, "invalid_arguments");
  assertStringIncludes(noId.text, '"processId"');
  assertEquals((await bash.call({ action: "dance" })).code, "invalid_arguments");
  assertEquals((await bash.call({ command: "true", shell: "zsh" })).code, "invalid_arguments");
});

Deno.test("bash's quick check of a plain exec call refuses exactly what the schema refuses", async () => {
  await using fx = await bashFixture();
  await using bash = bashUnderTest({ workspace: fx.workspace, bash: { sandbox: "none" } });
  // Close to a plain exec call, but each one wrong in one field: the schema must answer.
  for (
    const args of [
      { command: "" },
      { command: 1 },
      { command: "true", cwd: 3 },
      { command: "true", timeoutMs: 0 },
      { command: "true", timeoutMs: 1.5 },
      { command: "true", timeoutMs: "100" },
      { command: "true", timeoutMs: 2 ** 53 },
      { command: "true", action: "run" },
      { command: "true", extra: true },
      { command: "true", timeoutMs: null },
    ]
  ) {
    const result = await bash.call(args);
    assertEquals(result.code, "invalid_arguments", JSON.stringify(args));
    assertStringIncludes(result.text, 'Invalid arguments for tool "bash"', JSON.stringify(args));
  }
  // A plain call, also with undefined optional fields (as a host may pass them), runs.
  const ok = await bash.json({ command: "pwd", cwd: undefined, timeoutMs: 5000, action: "exec" });
  assertEquals(ok.stdout, `${fx.workspace}\n`);
  assertEquals((await bash.json({ command: "echo hi", timeoutMs: undefined })).stdout, "hi\n");
});

Deno.test("bash caps a model's timeoutMs at the context's commandTimeoutMs", async () => {
  await using fx = await bashFixture();
  await using bash = bashUnderTest({
    workspace: fx.workspace,
    bash: { sandbox: "none" },
    commandTimeoutMs: 200,
  });
  const result = await bash.json({ command: "sleep 5", timeoutMs: 60_000 });
  assertEquals(result.timedOut, true);
});

Deno.test("createBashTool() throws a TypeError when bash is off in the context", () => {
  const ctx = resolveBuiltinContext({ workspace: "/tmp/toolroute-ws" });
  const sessions = new SandboxSessions();
  assertThrows(
    () => createBashTool(ctx, new ProcessTable(ctx), { sessions }),
    TypeError,
    "bash is off",
  );
});

Deno.test({
  name: "bash returns permission_denied naming --allow-run when Deno may not run bash",
  permissions: { read: true, write: true, env: true, run: false },
  async fn() {
    await using fx = await bashFixture();
    await using bash = bashUnderTest({ workspace: fx.workspace, bash: { sandbox: "none" } });
    const result = await bash.call({ command: "true" });
    assertEquals(result.code, "permission_denied");
    assertStringIncludes(result.text, "--allow-run=bash");
  },
});

Deno.test({
  name: "bash returns permission_denied naming --allow-env when a variable may not be read",
  permissions: { read: true, write: true, run: ["bash"], env: ["PATH"] },
  async fn() {
    await using fx = await bashFixture();
    await using bash = bashUnderTest({
      workspace: fx.workspace,
      bash: { sandbox: "none", env: ["PATH", "HOME"] },
    });
    const result = await bash.call({ command: "true" });
    assertEquals(result.code, "permission_denied");
    assertStringIncludes(result.text, '"HOME"');
    assertStringIncludes(result.text, "--allow-env=PATH,HOME");
  },
});

Deno.test("bash under bwrap cannot read a file outside the roots, and sees no /root", {
  ignore: skipWithoutBwrap(),
}, async () => {
  await using fx = await bashFixture();
  await using bash = bashUnderTest({ workspace: fx.workspace, bash: { sandbox: "bwrap" } });
  const result = await bash.json({ command: `cat ${fx.marker}; ls /root; ls ${fx.sibling}` });
  assert(!String(result.stdout).includes("OUTSIDE-MARKER"), "the outside marker was readable");
  assertStringIncludes(String(result.stderr), "No such file or directory");
  assert(result.exitCode !== 0);
  assertStringIncludes(bash.tool.description, "bubblewrap sandbox");
});

Deno.test(
  "bash under bwrap has no capabilities and cannot write /proc, even when the host runs as root",
  { ignore: skipWithoutBwrap() },
  async () => {
    await using fx = await bashFixture();
    await using bash = bashUnderTest({ workspace: fx.workspace, bash: { sandbox: "bwrap" } });
    // Writing core_pattern back with its own value changes nothing even if the sandbox failed.
    const result = await bash.json({
      command: [
        "grep CapEff /proc/self/status",
        'cp=$(cat /proc/sys/kernel/core_pattern); (printf "%s\\n" "$cp" > /proc/sys/kernel/core_pattern) 2>/dev/null && echo CORE_WRITABLE || echo CORE_DENIED',
        "mknod ws_disk b 8 0 2>/dev/null && echo MKNOD_OK || echo MKNOD_DENIED",
      ].join("; "),
    });
    assertStringIncludes(String(result.stdout), "CapEff:\t0000000000000000");
    assertStringIncludes(String(result.stdout), "CORE_DENIED");
    assertStringIncludes(String(result.stdout), "MKNOD_DENIED");
  },
);

Deno.test(
  "bash under bwrap never runs a bwrap planted in the workspace, even when PATH lists it first",
  { ignore: skipWithoutBwrap() },
  async () => {
    await using fx = await bashFixture();
    const hostPath = Deno.env.get("PATH") ?? "";
    await Deno.mkdir(`${fx.workspace}/bin`);
    const planted = `${fx.outside}/planted-ran`;
    await Deno.writeTextFile(
      `${fx.workspace}/bin/bwrap`,
      `#!/bin/sh\ntouch ${planted}\necho PLANTED\n`,
      { mode: 0o755 },
    );
    Deno.env.set("PATH", `${fx.workspace}/bin:${hostPath}`);
    try {
      await using bash = bashUnderTest({ workspace: fx.workspace, bash: { sandbox: "bwrap" } });
      const result = await bash.json({ command: `echo "inner PATH=$PATH"; cat ${fx.marker}` });
      assert(!String(result.stdout).includes("PLANTED"), "the planted bwrap ran");
      assertStringIncludes(String(result.stdout), `inner PATH=${fx.workspace}/bin:`);
      assert(!String(result.stdout).includes("OUTSIDE-MARKER"), "the command ran unconfined");
      assertEquals(await Deno.stat(planted).then(() => true, () => false), false);
    } finally {
      Deno.env.set("PATH", hostPath);
    }
  },
);

Deno.test("bash under bwrap writes the workspace, reads but cannot write a read-only root", {
  ignore: skipWithoutBwrap(),
}, async () => {
  await using fx = await bashFixture();
  await using bash = bashUnderTest({
    workspace: fx.workspace,
    readOnlyRoots: [fx.readOnly],
    bash: { sandbox: "bwrap" },
  });
  const result = await bash.json({
    command:
      `echo made > made.txt && cat ${fx.readOnly}/notes.txt && echo x > ${fx.readOnly}/new.txt`,
  });
  assertEquals(await Deno.readTextFile(`${fx.workspace}/made.txt`), "made\n");
  assertEquals(result.stdout, "read-only notes\n");
  assertStringIncludes(String(result.stderr), "Read-only file system");
  assertEquals(result.exitCode, 1);
});

Deno.test("bash under bwrap gets a fresh empty /tmp, no network and no host secret", {
  ignore: skipWithoutBwrap(),
}, async () => {
  await using fx = await bashFixture();
  await using listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  Deno.env.set("TOOLROUTE_TEST_SECRET", "s3cr3t-value");
  try {
    await using bash = bashUnderTest({ workspace: fx.workspace, bash: { sandbox: "bwrap" } });
    const result = await bash.json({
      command: `ls -A /tmp; env; ` +
        `(echo hi > /dev/tcp/127.0.0.1/${port}) 2>/dev/null && echo CONNECTED || echo NO-NETWORK`,
    });
    const stdout = String(result.stdout);
    // Only the path down to the workspace exists in the sandbox's /tmp.
    assert(stdout.startsWith(`${fx.root.split("/").at(-1)}\nPWD=`), stdout);
    assert(!stdout.includes("s3cr3t-value"));
    assertStringIncludes(stdout, "NO-NETWORK");
  } finally {
    Deno.env.delete("TOOLROUTE_TEST_SECRET");
  }
});

Deno.test("bash under bwrap: timeout and leftover children end with the sandbox", {
  ignore: skipWithoutBwrap(),
}, async () => {
  await using fx = await bashFixture();
  await using bash = bashUnderTest({ workspace: fx.workspace, bash: { sandbox: "bwrap" } });
  const sleep = uniqueSleep();
  const timed = await bash.json({ command: `sleep ${sleep} & sleep 5`, timeoutMs: 200 });
  assertEquals(timed.timedOut, true);
  const quick = await bash.json({ command: `sleep ${sleep} >/dev/null 2>&1 & echo started` });
  assertEquals(quick.stdout, "started\n");
  assertEquals(await leftovers(`sleep ${sleep}`), []);
});

async function assertMissing(path: string): Promise<void> {
  const exists = await Deno.lstat(path).then(() => true, () => false);
  assertEquals(exists, false, `${path} exists`);
}

Deno.test("bash under bwrap works in a workspace declared through a symlink", {
  ignore: skipWithoutBwrap(),
}, async () => {
  await using fx = await bashFixture();
  const declared = `${fx.root}/link-to-ws`;
  await Deno.symlink(fx.workspace, declared);
  await using bash = bashUnderTest({ workspace: declared, bash: { sandbox: "bwrap" } });
  const result = await bash.json({ command: "pwd; echo via-link > made.txt" });
  assertEquals(result, { exitCode: 0, stdout: `${declared}\n`, stderr: "", timedOut: false });
  assertEquals(await Deno.readTextFile(`${fx.workspace}/made.txt`), "via-link\n");
});

Deno.test("bash under bwrap cannot write protected paths such as .git/hooks", {
  ignore: skipWithoutBwrap(),
}, async () => {
  await using fx = await bashFixture();
  await Deno.mkdir(`${fx.workspace}/.git/hooks`, { recursive: true });
  await using bash = bashUnderTest({ workspace: fx.workspace, bash: { sandbox: "bwrap" } });
  const result = await bash.json({
    command: "echo evil > .git/hooks/pre-commit; echo fine > ok.txt; ls .git",
  });
  assertStringIncludes(String(result.stderr), "Read-only file system");
  assertEquals(result.stdout, "hooks\n");
  await assertMissing(`${fx.workspace}/.git/hooks/pre-commit`);
  assertEquals(await Deno.readTextFile(`${fx.workspace}/ok.txt`), "fine\n");
});

Deno.test({
  name: "bash returns permission_denied naming --allow-read when Deno may not read the workspace",
  permissions: { read: false, write: false, run: ["bash"], env: true },
  async fn() {
    await using bash = bashUnderTest({ workspace: "/srv/toolroute-ws", bash: { sandbox: "none" } });
    const result = await bash.call({ command: "true" });
    assertEquals(result.code, "permission_denied");
    assertStringIncludes(result.text, "--allow-read=/srv/toolroute-ws");
  },
});

import { assert, assertEquals, assertRejects, assertThrows } from "@std/assert";
import { ToolError } from "../../../../src/core/tool_error.ts";
import { prepareBashCommand } from "../../../../src/deno/builtins/bash/bash_command.ts";
import { sandboxMounts } from "../../../../src/deno/builtins/sandbox/sandbox_mounts.ts";
import { resolveBuiltinContext } from "../../../../src/deno/builtins/builtin_context.ts";
import { runCommand } from "../../../../src/deno/builtins/bash/run_command.ts";
import { bashFixture } from "../_bash_fixture.ts";
import { skipWithoutBwrap } from "../../../_helpers/bwrap.ts";

const run = (command: string) => ({ command, background: false });

Deno.test("prepareBashCommand() throws a TypeError when bash is off", async () => {
  await using fx = await bashFixture();
  const ctx = resolveBuiltinContext({ workspace: fx.workspace });
  assertThrows(
    () => prepareBashCommand(ctx, run("true")),
    TypeError,
    "Cannot run a command: bash is off in this context",
  );
});

Deno.test("prepareBashCommand() runs in the real workspace with only the context's variables", async () => {
  await using fx = await bashFixture();
  await Deno.symlink(fx.workspace, `${fx.root}/link`);
  const ctx = resolveBuiltinContext({
    workspace: `${fx.root}/link`,
    bash: { sandbox: "none", env: ["PATH", "TOOLROUTE_TEST_UNSET_VARIABLE"] },
  });
  const invocation = prepareBashCommand(ctx, run("echo hi"));
  assertEquals(invocation.program, "bash");
  assertEquals(invocation.sandboxed, false);
  assertEquals(invocation.cwd, `${fx.root}/link`);
  assertEquals(Object.keys(invocation.env).sort(), ["PATH", "TOOLROUTE_RUN_ID"]);
  assertEquals(invocation.env.PATH, Deno.env.get("PATH"));
  const result = await runCommand(invocation, {
    timeoutMs: 5000,
    maxChars: 1000,
    signal: new AbortController().signal,
  });
  assertEquals(result.stdout, "hi\n");
});

Deno.test("prepareBashCommand() resolves cwd inside the workspace and refuses directories elsewhere", async () => {
  await using fx = await bashFixture();
  await Deno.mkdir(`${fx.workspace}/sub`);
  await Deno.writeTextFile(`${fx.workspace}/file.txt`, "x");
  await Deno.symlink(fx.outside, `${fx.workspace}/escape`);
  const ctx = resolveBuiltinContext({
    workspace: fx.workspace,
    readOnlyRoots: [fx.readOnly],
    bash: { sandbox: "none" },
  });
  const sub = prepareBashCommand(ctx, { ...run("pwd"), cwd: "sub" });
  assertEquals(sub.cwd, `${fx.workspace}/sub`);
  const cases: [string, string][] = [
    ["../outside", "permission_denied"],
    [fx.readOnly, "permission_denied"],
    ["escape", "permission_denied"],
    ["file.txt", "tool_error"],
    ["missing", "tool_error"],
  ];
  for (const [cwd, code] of cases) {
    const error = assertThrows(
      () => prepareBashCommand(ctx, { ...run("pwd"), cwd }),
      ToolError,
    );
    assertEquals(error.code, code, `cwd ${cwd}: ${error.message}`);
    assert(!error.message.includes(fx.outside), "does not say where a symlink leads");
  }
});

Deno.test("prepareBashCommand() under bwrap gives the command to the session: its text, directory and environment", async () => {
  await using fx = await bashFixture();
  const ctx = resolveBuiltinContext({ workspace: fx.workspace, bash: { sandbox: "bwrap" } });
  const invocation = prepareBashCommand(ctx, { command: "make", background: true });
  assertEquals(invocation.sandboxed, true);
  assertEquals(invocation.command, "make");
  assertEquals(invocation.cwd, fx.workspace);
  assertEquals(invocation.args, []);
});

Deno.test({
  name: "prepareBashCommand() refuses without prompting when Deno may not run bwrap",
  // With bubblewrap absent the refusal names that instead (tests/deno/cli/bwrap_missing_test.ts).
  ignore: skipWithoutBwrap(),
  permissions: { read: true, run: ["bash"], env: true },
  fn() {
    const ctx = resolveBuiltinContext({
      workspace: "/tmp/toolroute-ws",
      bash: { sandbox: "bwrap" },
    });
    const error = assertThrows(() => prepareBashCommand(ctx, run("true")), ToolError);
    assertEquals(error.code, "permission_denied");
    assertEquals(
      error.message,
      'The sandbox denied running "bwrap": the host must run Deno with --allow-run=bash,bwrap',
    );
  },
});

Deno.test("sandboxMounts() maps real paths onto declared ones and keeps only real protected paths", async () => {
  await using fx = await bashFixture();
  await Deno.symlink(fx.workspace, `${fx.root}/ws_link`);
  await Deno.symlink(fx.readOnly, `${fx.root}/ro_link`);
  await Deno.mkdir(`${fx.workspace}/.git`);
  await Deno.writeTextFile(`${fx.workspace}/secret.env`, "x");
  await Deno.symlink(fx.outside, `${fx.workspace}/linked`);
  const ctx = resolveBuiltinContext({
    workspace: `${fx.root}/ws_link`,
    readOnlyRoots: [`${fx.root}/ro_link`, `${fx.root}/absent`],
    protectedPaths: [".git", "secret.env", "linked", "not_there"],
    bash: { sandbox: "bwrap" },
  });
  const mounts = await sandboxMounts(ctx);
  const plain = (list: readonly { source: string; dest: string }[] | undefined) =>
    list?.map(({ source, dest }) => ({ source, dest }));
  assertEquals({ ...mounts, protectedPaths: plain(mounts.protectedPaths) }, {
    workspace: { source: fx.workspace, dest: `${fx.root}/ws_link` },
    readOnlyRoots: [{ source: fx.readOnly, dest: `${fx.root}/ro_link` }],
    protectedPaths: [
      { source: `${fx.workspace}/.git`, dest: `${fx.root}/ws_link/.git` },
      { source: `${fx.workspace}/secret.env`, dest: `${fx.root}/ws_link/secret.env` },
    ],
    pinnedDirs: [],
  });
});

Deno.test("sandboxMounts() of a missing workspace says the host must create it", async () => {
  await using fx = await bashFixture();
  const ctx = resolveBuiltinContext({ workspace: `${fx.root}/nope`, bash: { sandbox: "bwrap" } });
  const error = await assertRejects(() => sandboxMounts(ctx), ToolError, "does not exist");
  assertEquals(error.code, "tool_error");
});

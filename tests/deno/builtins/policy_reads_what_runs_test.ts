/**
 * Findings 8 and 9 (round 3) against the real built-in tools: each attack first runs with no
 * policy (it really writes, edits or executes), then the rule holds and nothing happens.
 *
 * @module
 */
import { assertEquals, assertMatch } from "@std/assert";
import { type Policy, ToolRouter } from "@toolroute/toolroute";
import { builtinTools } from "@toolroute/toolroute/deno";
import { makeFixture } from "./_fixture.ts";
import { exists } from "../../_helpers/exists.ts";

async function toolsUnder(workspace: string, policy?: Policy, bash = false) {
  const router = new ToolRouter({
    builtins: builtinTools({ workspace, bash: bash ? { sandbox: "none" } : false }),
    policy,
  });
  const tools = await router.expose({
    builtins: bash ? ["apply_patch", "edit", "bash"] : ["apply_patch", "edit"],
  });
  return { tools, [Symbol.asyncDispose]: () => router.close() };
}

Deno.test("apply_patch with a quoted or tab-separated unified header: written without a rule, denied under apply_patch(src/**)", async () => {
  const patches = [
    '--- /dev/null\n+++ "b/src/quoted.ts"\n@@ -0,0 +1 @@\n+evil\n',
    "--- /dev/null\n+++\tsrc/tabbed.ts\n@@ -0,0 +1 @@\n+evil\n",
  ];
  const files = ["src/quoted.ts", "src/tabbed.ts"];
  {
    await using fixture = await makeFixture();
    await using open = await toolsUnder(fixture.workspace);
    for (const [i, patch] of patches.entries()) {
      const result = await open.tools.call("apply_patch", { patch });
      assertEquals(result.isError, false, result.text);
      assertEquals(await Deno.readTextFile(`${fixture.workspace}/${files[i]}`), "evil\n");
    }
  }
  await using fixture = await makeFixture();
  await using guarded = await toolsUnder(fixture.workspace, { deny: ["apply_patch(src/**)"] });
  for (const [i, patch] of patches.entries()) {
    const result = await guarded.tools.call("apply_patch", { patch });
    assertEquals(result.code, "permission_denied", result.text);
    assertMatch(result.text, /apply_patch\(src\/\*\*\)/);
    assertEquals(await exists(`${fixture.workspace}/${files[i]}`), false);
  }
});

Deno.test("edit with ./, absolute or .. paths: edited without a rule, denied under edit(src/**)", async () => {
  await using fixture = await makeFixture();
  await Deno.mkdir(`${fixture.workspace}/src`);
  const file = `${fixture.workspace}/src/a.ts`;
  const paths = ["./src/a.ts", file, "x/../src/a.ts"];
  await using open = await toolsUnder(fixture.workspace);
  for (const [i, path] of paths.entries()) {
    await Deno.writeTextFile(file, "safe\n");
    const result = await open.tools.call("edit", { path, oldString: "safe", newString: `e${i}` });
    assertEquals(result.isError, false, result.text);
    assertEquals(await Deno.readTextFile(file), `e${i}\n`);
  }
  await using guarded = await toolsUnder(fixture.workspace, { deny: ["edit(src/**)"] });
  await Deno.writeTextFile(file, "safe\n");
  for (const path of paths) {
    const result = await guarded.tools.call("edit", { path, oldString: "safe", newString: "x" });
    assertEquals(result.code, "permission_denied", path);
  }
  assertEquals(await Deno.readTextFile(file), "safe\n");
});

Deno.test("GIT_CONFIG_* before an allowed git status runs the model's command without a rule; under bash(git status*) it falls through", async () => {
  await using fixture = await makeFixture();
  const git = new Deno.Command("git", { args: ["init", "-q"], cwd: fixture.workspace });
  assertEquals((await git.output()).code, 0);
  const marker = `${fixture.workspace}/pwned`;
  const command = "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor " +
    `GIT_CONFIG_VALUE_0='touch ${marker}; false' git status`;
  {
    await using open = await toolsUnder(fixture.workspace, undefined, true);
    const ran = await open.tools.call("bash", { command });
    assertEquals(ran.isError, false, ran.text);
    assertEquals(await exists(marker), true, "the payload ran through git status");
    await Deno.remove(marker);
  }
  const policy: Policy = { allow: ["bash(git status*)"], default: "deny" };
  await using guarded = await toolsUnder(fixture.workspace, policy, true);
  const denied = await guarded.tools.call("bash", { command });
  assertEquals(denied.code, "permission_denied", denied.text);
  assertEquals(await exists(marker), false);
  const plain = await guarded.tools.call("bash", { command: "git status --short" });
  assertEquals(plain.isError, false, plain.text);
});

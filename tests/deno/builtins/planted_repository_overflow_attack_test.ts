// Attack on finding 1's containment (issue 25): the walk that disables a repository a command
// planted (`scanAndContain`) shares its bounds with the sandbox's mount list. A command that plants
// a repository and, in the same run, makes the workspace exceed one of those bounds (more than
// 1,500 protected entries, or more than 50,000 folders) made the walk after the command throw,
// or stop at its bound, before anything was disabled: the planted repository stayed, and the host's `git status` there
// ran the model's core.fsmonitor command. The next command is refused, but the user's git runs
// whenever the user runs it. Each test asserts the plant was written and the command ran, then
// runs the host's real `git status` in the planted folder and asserts that nothing ran.

import { assert, assertEquals, assertFalse, assertStringIncludes } from "@std/assert";
import { ToolRouter } from "@toolroute/toolroute";
import { type BuiltinContext, builtinTools } from "@toolroute/toolroute/deno";
import { makeFixture } from "./_fixture.ts";
import { hostGitStatus } from "./_host_git.ts";
import { exists } from "../../_helpers/exists.ts";
import { skipWithoutBwrap } from "../../_helpers/bwrap.ts";

function plantedConfig(marker: string): string {
  return `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n` +
    `\tfsmonitor = "touch ${marker}; false"\n`;
}

function plantScript(dir: string, marker: string): string {
  return `mkdir -p ${dir}/objects ${dir}/refs/heads && printf '%s' '${
    plantedConfig(marker)
  }' > ${dir}/config && printf 'ref: refs/heads/main\\n' > ${dir}/HEAD`;
}

// Under CI's load a flood of folders took most of a minute: the deadline is not what these tests
// are about.
const sandboxed = (workspace: string): BuiltinContext => ({
  workspace,
  commandTimeoutMs: 180_000,
  bash: { sandbox: "bwrap" },
});

async function plantWith(flood: string): Promise<void> {
  await using fx = await makeFixture();
  const marker = `${fx.outside}/marker`;
  await using router = new ToolRouter({ builtins: builtinTools(sandboxed(fx.workspace)) });
  const tools = await router.expose({ builtins: ["bash"] });
  // A first command: the workspace's first walk (its baseline) holds no repository.
  assertFalse((await tools.call("bash", { command: "true" })).isError);
  const result = await tools.call("bash", { command: `${flood} && ${plantScript("src", marker)}` });
  // The attack ran: the command succeeded and wrote every file of the repository.
  assertFalse(result.isError, result.text);
  assertEquals(JSON.parse(result.text).exitCode, 0, result.text);
  assertStringIncludes(await Deno.readTextFile(`${fx.workspace}/src/config`), "fsmonitor");
  assert(await exists(`${fx.workspace}/src/objects`));
  // Contained: the planted folder no longer has its HEAD, and the host's git runs nothing there.
  await hostGitStatus(`${fx.workspace}/src`, fx.base);
  assertFalse(await exists(marker), "git on the host ran the command the model planted");
  assertFalse(await exists(`${fx.workspace}/src/HEAD`), "the planted repository was left active");
}

Deno.test({
  name:
    "a command that plants a repository beside more .git files than the sandbox can bind finds it disabled, and the host's git runs nothing",
  ignore: skipWithoutBwrap(),
  // One mkdir and 1,600 redirections: a process per folder cost 6 ms each here, and under CI's
  // load the flood ran past its deadline (exit code 137).
  fn: () =>
    plantWith("mkdir -p $(seq -f 'f/%g' 1 1600) && for i in $(seq 1 1600); do : > f/$i/.git; done"),
});

Deno.test({
  name:
    "a command that plants repositories nested deeper than the walk's rounds finds the innermost disabled too, and the host's git runs nothing",
  ignore: skipWithoutBwrap(),
  fn: async () => {
    // Each round of the containment walk disables one level (the walk does not enter a
    // repository); past 256 rounds it gave up and left the rest active.
    await using fx = await makeFixture();
    const marker = `${fx.outside}/marker`;
    await using router = new ToolRouter({ builtins: builtinTools(sandboxed(fx.workspace)) });
    const tools = await router.expose({ builtins: ["bash"] });
    assertFalse((await tools.call("bash", { command: "true" })).isError);
    const config =
      `[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tworktree = ..\\n\\tfsmonitor = "touch ${marker}; false"\\n`;
    const result = await tools.call("bash", {
      command: `d=.; for i in $(seq 1 300); do d=$d/r; mkdir -p $d/objects $d/refs; ` +
        `printf 'ref: refs/heads/main\\n' > $d/HEAD; done; printf '${config}' > $d/config; ` +
        `ln -s $d src && echo planted`,
    });
    assertFalse(result.isError, result.text);
    assertEquals(JSON.parse(result.text).stdout, "planted\n");
    assertStringIncludes(await Deno.readTextFile(`${fx.workspace}/src/config`), "fsmonitor");
    await hostGitStatus(`${fx.workspace}/src`, fx.base);
    assertFalse(await exists(marker), "git on the host ran the command the model planted");
    assertFalse(await exists(`${fx.workspace}/src/HEAD`), "the innermost repository is active");
  },
});

Deno.test({
  name:
    "a command that plants a repository deep inside more than 50,000 folders finds it disabled, and the host's git runs nothing",
  ignore: skipWithoutBwrap(),
  fn: async () => {
    // The walk stopped at 50,000 folders: a repository planted past them stayed active (the
    // next command was refused, but the user's own git runs whenever the user runs it).
    await using fx = await makeFixture();
    const marker = `${fx.outside}/marker`;
    await using router = new ToolRouter({ builtins: builtinTools(sandboxed(fx.workspace)) });
    const tools = await router.expose({ builtins: ["bash"] });
    assertFalse((await tools.call("bash", { command: "true" })).isError);
    const plant = "d/50099/deep/er/src";
    const result = await tools.call("bash", {
      command: `mkdir d && (cd d && seq 1 50100 | xargs mkdir) && ${plantScript(plant, marker)}` +
        ` && find d -maxdepth 1 -type d | wc -l`,
    });
    // The attack ran: more folders than the bound, and every file of the repository written.
    assertFalse(result.isError, result.text);
    assertEquals(JSON.parse(result.text).stdout, "50101\n", result.text);
    const src = `${fx.workspace}/${plant}`;
    assertStringIncludes(await Deno.readTextFile(`${src}/config`), "fsmonitor");
    // Contained: its HEAD was renamed aside, and the host's git runs nothing there.
    assertStringIncludes(JSON.parse(result.text).notice ?? "", plant);
    await hostGitStatus(src, fx.base);
    assertFalse(await exists(marker), "git on the host ran the command the model planted");
    assertFalse(await exists(`${src}/HEAD`), "the planted repository was left active");
    // The workspace is over the sandbox's bound: the next command is refused, saying why.
    const next = await tools.call("bash", { command: "true" });
    assert(next.isError);
    assertStringIncludes(next.text, "more than 50000 directories");
    // Control: with its HEAD back the plant is a repository whose command the host's git runs.
    await Deno.rename(`${src}/HEAD.disabled-by-toolroute`, `${src}/HEAD`);
    await hostGitStatus(src, fx.base);
    assert(await exists(marker), "the control: the plant runs its command once enabled again");
  },
});

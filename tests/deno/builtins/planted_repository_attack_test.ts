// Finding 1 of issue 25: a model plants a git repository in the workspace (`HEAD`, `objects/`,
// `refs/`, a `config` with core.fsmonitor); the next `git status` the user, a shell prompt or an
// IDE runs there executes the model's command on the host, outside every sandbox. Each test runs
// the attack through one write path, asserts that the model's files were really written, then
// runs the host's real `git status` there and asserts that the fsmonitor command never ran.

import { assert, assertEquals, assertFalse, assertStringIncludes } from "@std/assert";
import { ToolRouter, type ToolSet } from "@toolroute/toolroute";
import { type BuiltinContext, builtinTools } from "@toolroute/toolroute/deno";
import { makeFixture } from "./_fixture.ts";
import { hostGitStatus } from "./_host_git.ts";
import { exists } from "../../_helpers/exists.ts";
import { skipWithoutBwrap } from "../../_helpers/bwrap.ts";

/** A config that makes `git status` in the folder run `touch <marker>`. */
function plantedConfig(marker: string): string {
  return `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n` +
    `\tfsmonitor = "touch ${marker}; false"\n`;
}

async function tools(
  context: BuiltinContext,
  names: string[],
): Promise<{ tools: ToolSet } & AsyncDisposable> {
  const router = new ToolRouter({ builtins: builtinTools(context) });
  const toolSet = await router.expose({ builtins: names });
  return { tools: toolSet, [Symbol.asyncDispose]: () => router.close() };
}

Deno.test("the planted repository runs its config through the host's git status when written by hand (the payload works)", async () => {
  await using fx = await makeFixture();
  const marker = `${fx.outside}/control-marker`;
  const src = `${fx.workspace}/src`;
  await Deno.mkdir(`${src}/objects`, { recursive: true });
  await Deno.mkdir(`${src}/refs`);
  await Deno.writeTextFile(`${src}/config`, plantedConfig(marker));
  await Deno.writeTextFile(`${src}/HEAD`, "ref: refs/heads/main\n");
  await hostGitStatus(src, fx.base);
  assert(await exists(marker), "git on the host ran the planted fsmonitor command");
});

Deno.test("write_file cannot complete a git repository in any order: HEAD last, objects/ last, refs/ last", async () => {
  await using fx = await makeFixture();
  const marker = `${fx.outside}/marker`;
  await using t = await tools(fx.context, ["write_file"]);
  const write = (path: string, content: string) => t.tools.call("write_file", { path, content });
  // The write that puts HEAD beside objects/, refs/ or commondir is refused, whichever comes
  // last; everything before it was written.
  const orders = [
    ["objects/info/x", "refs/heads/.keep", "config", "HEAD"],
    ["HEAD", "config", "objects/info/x"],
    ["HEAD", "config", "refs/heads/.keep"],
    ["config", "commondir", "HEAD"],
  ];
  for (const [i, order] of orders.entries()) {
    const dir = `src${i}`;
    const results = [];
    for (const name of order) {
      const content = name === "config" ? plantedConfig(marker) : "ref: refs/heads/main\n";
      results.push(await write(`${dir}/${name}`, content));
    }
    for (const [j, name] of order.entries()) {
      const last = j === order.length - 1;
      assertEquals(results[j].isError, last, `${dir}/${name}: ${results[j].text}`);
      assertEquals(await exists(`${fx.workspace}/${dir}/${name}`), !last);
    }
    assertEquals(results.at(-1)!.code, "permission_denied");
    assertStringIncludes(results.at(-1)!.text, "git directory");
    await hostGitStatus(`${fx.workspace}/${dir}`, fx.base);
  }
  assertFalse(await exists(marker), "git on the host ran a command the model wrote");
});

Deno.test("write_file refuses any case of the names, through a symlinked folder, and inside an existing repository", async () => {
  await using fx = await makeFixture();
  const marker = `${fx.outside}/marker`;
  // The user's own bare repository, made by git itself.
  const bare = `${fx.workspace}/fixtures/repo.git`;
  await new Deno.Command("git", { args: ["init", "-q", "--bare", bare] }).output();
  await Deno.mkdir(`${fx.workspace}/src/objects`, { recursive: true });
  await Deno.mkdir(`${fx.workspace}/src/refs`);
  await Deno.symlink("src", `${fx.workspace}/link`);
  await using t = await tools(fx.context, ["write_file"]);
  for (
    const path of [
      "src/head",
      "src/HEAD.",
      "link/HEAD",
      "fixtures/repo.git/config",
      "fixtures/repo.git/hooks/post-checkout",
      "fixtures/repo.git/commondir",
    ]
  ) {
    const result = await t.tools.call("write_file", { path, content: plantedConfig(marker) });
    assertEquals(result.code, "permission_denied", `${path}: ${result.text}`);
  }
  assertFalse(await exists(`${fx.workspace}/src/HEAD`));
  assertFalse((await Deno.readTextFile(`${bare}/config`)).includes("fsmonitor"));
  await hostGitStatus(`${fx.workspace}/src`, fx.base);
  await hostGitStatus(bare, fx.base);
  assertFalse(await exists(marker));
});

Deno.test("apply_patch cannot add a whole repository at once, nor move a file into place as its HEAD", async () => {
  await using fx = await makeFixture();
  const marker = `${fx.outside}/marker`;
  await using t = await tools(fx.context, ["apply_patch", "write_file"]);
  const config = plantedConfig(marker).split("\n").filter((l) => l !== "").map((l) => `+${l}`);
  const patch = [
    "*** Begin Patch",
    "*** Add File: src/config",
    ...config,
    "*** Add File: src/objects/info/x",
    "+x",
    "*** Add File: src/refs/heads/.keep",
    "+x",
    "*** Add File: src/HEAD",
    "+ref: refs/heads/main",
    "*** End Patch",
  ].join("\n");
  const once = await t.tools.call("apply_patch", { patch });
  assertEquals(once.code, "permission_denied", once.text);
  assertFalse(await exists(`${fx.workspace}/src`), "all or nothing: nothing was written");

  // Written one by one (each alone is allowed), then HEAD moved in by a patch.
  for (
    const [path, content] of [["src/config", plantedConfig(marker)], ["src/objects/x", "x"], [
      "src/refs/x",
      "x",
    ], ["staged.txt", "ref: refs/heads/main\n"]]
  ) {
    assertFalse((await t.tools.call("write_file", { path, content })).isError);
  }
  const move = await t.tools.call("apply_patch", {
    patch:
      "*** Begin Patch\n*** Update File: staged.txt\n*** Move to: src/HEAD\n@@\n-ref: refs/heads/main\n+ref: refs/heads/main2\n*** End Patch",
  });
  assertEquals(move.code, "permission_denied", move.text);
  assert(await exists(`${fx.workspace}/staged.txt`), "the move did not happen");
  assert(await exists(`${fx.workspace}/src/config`), "the attack ran: the config was written");
  await hostGitStatus(`${fx.workspace}/src`, fx.base);
  assertFalse(await exists(marker));
});

Deno.test("edit cannot change the config or hooks of a repository in the workspace", async () => {
  await using fx = await makeFixture();
  const marker = `${fx.outside}/marker`;
  const bare = `${fx.workspace}/vendor/dep.git`;
  await new Deno.Command("git", { args: ["init", "-q", "--bare", bare] }).output();
  await Deno.writeTextFile(`${bare}/hooks/pre-commit`, "#!/bin/sh\ntrue\n");
  await using t = await tools(fx.context, ["edit"]);
  const result = await t.tools.call("edit", {
    path: "vendor/dep.git/config",
    oldString: "[core]",
    newString: `[core]\n\tworktree = ..\n\tfsmonitor = "touch ${marker}; false"`,
  });
  assertEquals(result.code, "permission_denied", result.text);
  const hook = await t.tools.call("edit", {
    path: "vendor/dep.git/hooks/pre-commit",
    oldString: "true",
    newString: `touch ${marker}`,
  });
  assertEquals(hook.code, "permission_denied", hook.text);
  assertFalse((await Deno.readTextFile(`${bare}/config`)).includes("fsmonitor"));
  await hostGitStatus(bare, fx.base);
  assertFalse(await exists(marker));
});

const sandboxed = (workspace: string): BuiltinContext => ({
  workspace,
  commandTimeoutMs: 20_000,
  bash: { sandbox: "bwrap" },
});

function plantScript(dir: string, marker: string): string {
  return `mkdir -p ${dir}/objects ${dir}/refs/heads && printf '%s' '${
    plantedConfig(marker)
  }' > ${dir}/config && printf 'ref: refs/heads/main\\n' > ${dir}/HEAD && ls ${dir}`;
}

Deno.test({
  name:
    "a sandboxed command that plants a repository finds it disabled when it returns, and the host's git runs nothing",
  ignore: skipWithoutBwrap(),
  fn: async () => {
    await using fx = await makeFixture();
    const marker = `${fx.outside}/marker`;
    await using t = await tools(sandboxed(fx.workspace), ["bash"]);
    const result = await t.tools.call("bash", { command: plantScript("src", marker) });
    assertFalse(result.isError, result.text);
    const out = JSON.parse(result.text);
    // The attack ran: the command wrote every file, HEAD included (`ls` listed it).
    assertStringIncludes(out.stdout, "HEAD");
    assertStringIncludes(await Deno.readTextFile(`${fx.workspace}/src/config`), "fsmonitor");
    assertStringIncludes(out.notice, '"src/HEAD" to "src/HEAD.disabled-by-toolroute"');
    assertFalse(await exists(`${fx.workspace}/src/HEAD`));
    assertEquals(
      await Deno.readTextFile(`${fx.workspace}/src/HEAD.disabled-by-toolroute`),
      "ref: refs/heads/main\n",
      "nothing was lost",
    );
    await hostGitStatus(`${fx.workspace}/src`, fx.base);
    assertFalse(await exists(marker), "git on the host ran a command the model wrote");
  },
});

Deno.test({
  name:
    "a sandboxed command's git init with core.fsmonitor, and a prepared folder moved into place, are disabled too",
  ignore: skipWithoutBwrap(),
  fn: async () => {
    await using fx = await makeFixture();
    const marker = `${fx.outside}/marker`;
    await using t = await tools(sandboxed(fx.workspace), ["bash"]);
    const init = await t.tools.call("bash", {
      command:
        `git init -q sub && git -C sub config core.fsmonitor 'touch ${marker}; false' && ls sub/.git`,
    });
    assertFalse(init.isError, init.text);
    assertStringIncludes(JSON.parse(init.text).stdout, "HEAD", "git init ran in the sandbox");
    assertStringIncludes(
      JSON.parse(init.text).notice,
      '"sub/.git" to "sub/.git.disabled-by-toolroute"',
    );
    // A repository inside the repository, and one inside the new .git: each round of the walk
    // enters what the last one disabled.
    const nested = await t.tools.call("bash", {
      command: `${plantScript("outer", marker)} && ${plantScript("outer/inner", marker)} && ` +
        `${plantScript("sub2/.git/modules/m", marker)} && git init -q sub2`,
    });
    assertFalse(nested.isError, nested.text);
    const notice = JSON.parse(nested.text).notice;
    for (
      const disabled of [
        '"outer/HEAD"',
        '"outer/inner/HEAD"',
        '"sub2/.git"',
        '"sub2/.git.disabled-by-toolroute/modules/m/HEAD"',
      ]
    ) {
      assertStringIncludes(notice, disabled);
    }
    await hostGitStatus(`${fx.workspace}/outer/inner`, fx.base);
    await hostGitStatus(`${fx.workspace}/sub2/.git.disabled-by-toolroute/modules/m`, fx.base);
    const moved = await t.tools.call("bash", {
      command: `${plantScript("stage", marker)} && mv stage moved`,
    });
    assertFalse(moved.isError, moved.text);
    assertStringIncludes(JSON.parse(moved.text).notice, '"moved/HEAD"');
    await hostGitStatus(`${fx.workspace}/sub`, fx.base);
    await hostGitStatus(`${fx.workspace}/moved`, fx.base);
    assertFalse(await exists(marker));
  },
});

Deno.test({
  name:
    "a repository planted by a background process is disabled when it ends, and reported in the next result",
  ignore: skipWithoutBwrap(),
  fn: async () => {
    await using fx = await makeFixture();
    const marker = `${fx.outside}/marker`;
    await using t = await tools(sandboxed(fx.workspace), ["bash"]);
    const started = await t.tools.call("bash", {
      action: "start",
      command: `sleep 0.3; ${plantScript("bg", marker)}`,
    });
    assertFalse(started.isError, started.text);
    const { processId } = JSON.parse(started.text);
    let status: Record<string, unknown> = {};
    for (let i = 0; i < 200; i++) {
      status = JSON.parse((await t.tools.call("bash", { action: "status", processId })).text);
      if (status.running === false && typeof status.notice === "string") break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assertEquals(status.exitCode, 0, "the background process planted the repository");
    assertStringIncludes(String(status.notice), '"bg/HEAD"');
    assertStringIncludes(await Deno.readTextFile(`${fx.workspace}/bg/config`), "fsmonitor");
    await hostGitStatus(`${fx.workspace}/bg`, fx.base);
    assertFalse(await exists(marker));
  },
});

Deno.test({
  name: "a repository the user had before any command stays as it is and read-only for commands",
  ignore: skipWithoutBwrap(),
  fn: async () => {
    await using fx = await makeFixture();
    const marker = `${fx.outside}/marker`;
    const bare = `${fx.workspace}/repo.git`;
    await new Deno.Command("git", { args: ["init", "-q", "--bare", bare] }).output();
    await using t = await tools(sandboxed(fx.workspace), ["bash"]);
    const result = await t.tools.call("bash", {
      command:
        `printf '[core]\\n\\tfsmonitor = "touch ${marker}"\\n' >> repo.git/config; echo done`,
    });
    assertFalse(result.isError, result.text);
    const out = JSON.parse(result.text);
    assertStringIncludes(out.stderr, "Read-only file system", "the command tried to write");
    assertEquals(out.notice, undefined, "the user's repository was not touched");
    assert(await exists(`${bare}/HEAD`));
    await hostGitStatus(bare, fx.base);
    assertFalse(await exists(marker));
  },
});

Deno.test("a context with no protectedPaths still refuses to complete or write in a git directory", async () => {
  await using fx = await makeFixture();
  const marker = `${fx.outside}/marker`;
  await using t = await tools({ ...fx.context, protectedPaths: [] }, ["write_file"]);
  for (const [path, content] of [["r/objects/x", "x"], ["r/config", plantedConfig(marker)]]) {
    assertFalse((await t.tools.call("write_file", { path, content })).isError, path);
  }
  const head = await t.tools.call("write_file", {
    path: "r/HEAD",
    content: "ref: refs/heads/main\n",
  });
  assertEquals(head.code, "permission_denied", head.text);
  // The user's own repository (a .git folder, which this context does not protect by name).
  await new Deno.Command("git", { args: ["init", "-q", `${fx.workspace}/proj`] }).output();
  const config = await t.tools.call("write_file", {
    path: "proj/.git/config",
    content: plantedConfig(marker).replace("worktree = ..", "worktree = ."),
  });
  assertEquals(config.code, "permission_denied", config.text);
  await hostGitStatus(`${fx.workspace}/r`, fx.base);
  await hostGitStatus(`${fx.workspace}/proj`, fx.base);
  assertFalse(await exists(marker));
});

Deno.test({
  name: "a repository planted by a background process that keeps running is disabled while it runs",
  ignore: skipWithoutBwrap(),
  fn: async () => {
    await using fx = await makeFixture();
    const marker = `${fx.outside}/marker`;
    await using t = await tools(sandboxed(fx.workspace), ["bash"]);
    const started = await t.tools.call("bash", {
      action: "start",
      command: `${plantScript("live", marker)}; sleep 60`,
    });
    assertFalse(started.isError, started.text);
    const { processId } = JSON.parse(started.text);
    // The attack ran: the config was written by the process.
    for (let i = 0; i < 200 && !(await exists(`${fx.workspace}/live/config`)); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assertStringIncludes(await Deno.readTextFile(`${fx.workspace}/live/config`), "fsmonitor");
    // Disabled without any further call, while the process still runs.
    for (
      let i = 0;
      i < 200 && !(await exists(`${fx.workspace}/live/HEAD.disabled-by-toolroute`));
      i++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert(await exists(`${fx.workspace}/live/HEAD.disabled-by-toolroute`));
    await hostGitStatus(`${fx.workspace}/live`, fx.base);
    assertFalse(await exists(marker));
    const status = JSON.parse((await t.tools.call("bash", { action: "status", processId })).text);
    assertEquals(status.running, true);
    assertStringIncludes(status.notice, '"live/HEAD"');
    await t.tools.call("bash", { action: "stop", processId });
  },
});

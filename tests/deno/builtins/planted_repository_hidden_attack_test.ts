// Attack on finding 1's containment (issue 25): the walk that disables planted repositories
// (`scanAndContain`) does not enter a protected entry, and counts a `.git` as a repository only
// when it is a folder git accepts or a file. A command made a `.git` folder that is no repository
// (`a/.git/`), hid a whole repository inside it (`a/.git/evil/` with core.fsmonitor), and pointed
// a symbolic link `src/.git` at it (or a folder link `inner` the user may `cd` into): nothing was
// disabled, and the host's `git status` in `src/` ran the model's command. Each test asserts the
// plant was written and then runs the host's real `git status` and asserts nothing ran.

import { assertEquals, assertFalse, assertStringIncludes } from "@std/assert";
import { ToolRouter } from "@toolroute/toolroute";
import { type BuiltinContext, builtinTools } from "@toolroute/toolroute/deno";
import { makeFixture } from "./_fixture.ts";
import { hostGitStatus } from "./_host_git.ts";
import { exists } from "../../_helpers/exists.ts";
import { skipWithoutBwrap } from "../../_helpers/bwrap.ts";

const sandboxed = (workspace: string): BuiltinContext => ({
  workspace,
  commandTimeoutMs: 20_000,
  bash: { sandbox: "bwrap" },
});

/** A repository at `dir` whose config makes `git status` run `touch <marker>`. */
function hiddenRepository(dir: string, marker: string): string {
  return `mkdir -p ${dir}/objects ${dir}/refs/heads && ` +
    `printf '[core]\\n\\tbare = false\\n\\tfsmonitor = "touch ${marker}; false"\\n' > ${dir}/config && ` +
    `printf 'ref: refs/heads/main\\n' > ${dir}/HEAD`;
}

Deno.test({
  name:
    "a repository hidden inside a .git folder that is no repository, reached through a .git symlink, is disabled and the host's git runs nothing",
  ignore: skipWithoutBwrap(),
  fn: async () => {
    await using fx = await makeFixture();
    const marker = `${fx.outside}/marker`;
    await using router = new ToolRouter({ builtins: builtinTools(sandboxed(fx.workspace)) });
    const tools = await router.expose({ builtins: ["bash"] });
    assertFalse((await tools.call("bash", { command: "true" })).isError);
    const result = await tools.call("bash", {
      command: `mkdir -p a/.git src && ${hiddenRepository("a/.git/evil", marker)} && ` +
        `ln -s ../a/.git/evil src/.git && ln -s a/.git/evil inner && echo planted`,
    });
    // The attack ran: the command wrote the repository and the links.
    assertFalse(result.isError, result.text);
    assertEquals(JSON.parse(result.text).stdout, "planted\n");
    assertStringIncludes(
      await Deno.readTextFile(`${fx.workspace}/src/.git/config`).catch(() =>
        Deno.readTextFile(`${fx.workspace}/a/.git.disabled-by-toolroute/evil/config`)
      ),
      "fsmonitor",
    );
    // Contained: git on the host, in the folder with the link and in the linked folder.
    await hostGitStatus(`${fx.workspace}/src`, fx.base);
    assertFalse(await exists(marker), "git status in src/ ran the command the model planted");
    // The link leads nowhere once the folder it names was renamed aside (stat follows it).
    const linked = await Deno.stat(`${fx.workspace}/inner`).then(
      (info) => info.isDirectory,
      () => false,
    );
    if (linked) {
      await hostGitStatus(`${fx.workspace}/inner`, fx.base);
    }
    assertFalse(await exists(marker), "git status in the linked folder ran the planted command");
  },
});

// Attack on finding 1's containment (issue 25): the walk that disables planted repositories
// (`scanAndContain`) does not enter a protected entry. docs/security.md advises adding `.vscode`
// (and `.idea`, `.github` …) to `protectedPaths`; a protected folder that does not exist yet is not
// bound, so a command creates it, plants a whole repository inside (`.vscode/x/` with
// core.fsmonitor) and links a folder to it (`src -> .vscode/x`). Nothing was disabled, and the
// host's `git status` in `src/` (git reads the physical folder) ran the model's command.

import { assertEquals, assertFalse, assertStringIncludes } from "@std/assert";
import { ToolRouter } from "@toolroute/toolroute";
import { type BuiltinContext, builtinTools } from "@toolroute/toolroute/deno";
import { makeFixture } from "./_fixture.ts";
import { hostGitStatus } from "./_host_git.ts";
import { exists } from "../../_helpers/exists.ts";
import { skipWithoutBwrap } from "../../_helpers/bwrap.ts";

Deno.test({
  name:
    "a repository planted inside a protected folder the command created, reached through a folder link, is disabled and the host's git runs nothing",
  ignore: skipWithoutBwrap(),
  fn: async () => {
    await using fx = await makeFixture();
    const marker = `${fx.outside}/marker`;
    const context: BuiltinContext = {
      workspace: fx.workspace,
      protectedPaths: [".git", ".vscode"],
      commandTimeoutMs: 20_000,
      bash: { sandbox: "bwrap" },
    };
    await using router = new ToolRouter({ builtins: builtinTools(context) });
    const tools = await router.expose({ builtins: ["bash"] });
    assertFalse((await tools.call("bash", { command: "true" })).isError);
    const dir = ".vscode/x";
    const result = await tools.call("bash", {
      command: `mkdir -p ${dir}/objects ${dir}/refs/heads && ` +
        `printf '[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tworktree = ..\\n\\tfsmonitor = "touch ${marker}; false"\\n' > ${dir}/config && ` +
        `printf 'ref: refs/heads/main\\n' > ${dir}/HEAD && ln -s ${dir} src && echo planted`,
    });
    // The attack ran: the command wrote the repository and the link.
    assertFalse(result.isError, result.text);
    assertEquals(JSON.parse(result.text).stdout, "planted\n");
    assertStringIncludes(await Deno.readTextFile(`${fx.workspace}/src/config`), "fsmonitor");
    await hostGitStatus(`${fx.workspace}/src`, fx.base);
    assertFalse(await exists(marker), "git status in src/ ran the command the model planted");
    assertFalse(await exists(`${fx.workspace}/${dir}/HEAD`), "the planted repository is active");
  },
});

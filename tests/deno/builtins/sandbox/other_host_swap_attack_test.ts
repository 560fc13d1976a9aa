/**
 * A sandboxed process of *another* toolroute host process on the same workspace (a second
 * `serve`, another agent's `toolroute`, the user's `toolroute call`) swaps a folder with a link
 * into a repository that the other process binds read-only and this one does not (the person at
 * the keyboard made it after this process's first walk, before the other's), while this process's
 * model writes through that folder. The walk before each file write disables the repository first
 * (its `.git` renamed aside), so this process's supervisor, which follows links, never writes the
 * hook. A write that took an earlier walk (skipped while no sandboxed process of this host process
 * ran, tried and not kept: no count kept in one process sees another's) did.
 *
 * @module
 */

import { assert, assertFalse } from "@std/assert";
import { ToolRouter, type ToolSet } from "@toolroute/toolroute";
import { builtinTools } from "@toolroute/toolroute/deno";
import { makeFixture } from "../_fixture.ts";
import { exists } from "../../../_helpers/exists.ts";
import { skipWithoutBwrap } from "../../../_helpers/bwrap.ts";

const OTHER_HOST = new URL("./_other_host_swapper_main.ts", import.meta.url).pathname;

async function sandboxTools(workspace: string): Promise<{ tools: ToolSet } & AsyncDisposable> {
  const router = new ToolRouter({
    builtins: builtinTools({ workspace, bash: { sandbox: "bwrap" } }),
  });
  const tools = await router.expose({ builtins: ["bash", "write_file"] });
  return { tools, [Symbol.asyncDispose]: () => router.close() };
}

/** A repository written by the host (as the user's `git init` would), with its hooks folder. */
async function userRepository(dir: string): Promise<void> {
  await Deno.mkdir(`${dir}/objects`, { recursive: true });
  await Deno.mkdir(`${dir}/refs/heads`, { recursive: true });
  await Deno.mkdir(`${dir}/hooks`);
  await Deno.writeTextFile(`${dir}/HEAD`, "ref: refs/heads/main\n");
}

Deno.test({
  name:
    "a sandboxed process of another toolroute host process swapping a folder with a link into a repository: no file write of this process lands in its hooks",
  ignore: skipWithoutBwrap(),
  fn: async () => {
    await using f = await makeFixture();
    await using mine = await sandboxTools(f.workspace);
    await Deno.mkdir(`${f.workspace}/src`);
    // This process's session starts, and its command's walk is current.
    assertFalse((await mine.tools.call("bash", { command: "true" })).isError);
    // The person at the keyboard makes a repository; then another toolroute process starts on
    // the same workspace (for it the repository was there at its first walk: bound read-only),
    // and its model's background process swaps src with a link into late/.git/hooks.
    await userRepository(`${f.workspace}/late/.git`);
    const other = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--no-prompt", OTHER_HOST, f.workspace, "4"],
      stdout: "piped",
      stderr: "inherit",
      stdin: "null",
    }).spawn();
    const reader = other.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let writes = 0;
    try {
      assert((await reader.read()).value === "started\n", "the other host process did not start");
      // Until the swapper is done (it writes its count), at most 15 s.
      const until = performance.now() + 15_000;
      while (performance.now() < until && !await exists(`${f.workspace}/swaps.txt`)) {
        await mine.tools.call("write_file", { path: "src/pre-commit", content: "#!/bin/sh\n" });
        writes++;
      }
    } finally {
      await other.status;
      await reader.cancel();
    }
    // The attack ran: the folder was swapped thousands of times while this process wrote.
    const swaps = Number(await Deno.readTextFile(`${f.workspace}/swaps.txt`));
    assert(swaps > 1000, `only ${swaps} swaps`);
    assert(writes > 10, `only ${writes} writes`);
    for (const hooks of ["late/.git/hooks", "late/.git.disabled-by-toolroute/hooks"]) {
      assertFalse(
        await exists(`${f.workspace}/${hooks}/pre-commit`),
        `a write went through the link into ${hooks}`,
      );
    }
  },
});

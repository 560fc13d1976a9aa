/**
 * What the walk before each sandboxed file write keeps: the session's roots as they are now (a
 * workspace whose link points elsewhere gets a fresh session), and, while another user's process
 * swaps a folder with a link into a repository made meanwhile, no write of this user's in that
 * repository's hooks (the walk disables the repository before the write).
 *
 * @module
 */

import { assert, assertEquals, assertFalse } from "@std/assert";
import { ToolRouter, type ToolSet } from "@toolroute/toolroute";
import { type BuiltinContext, builtinTools } from "@toolroute/toolroute/deno";
import { makeFixture } from "../_fixture.ts";
import { exists } from "../../../_helpers/exists.ts";
import { skipWithoutBwrap } from "../../../_helpers/bwrap.ts";

const sandboxed = (workspace: string): BuiltinContext => ({
  workspace,
  bash: { sandbox: "bwrap" },
});

async function sandboxTools(
  context: BuiltinContext,
): Promise<{ tools: ToolSet } & AsyncDisposable> {
  const router = new ToolRouter({ builtins: builtinTools(context) });
  const tools = await router.expose({ builtins: ["bash", "write_file"] });
  return { tools, [Symbol.asyncDispose]: () => router.close() };
}

/** A repository written by the host (as the user's `git init` would), not by a command. */
async function plantFromOutside(workspace: string, name: string): Promise<string> {
  const dir = `${workspace}/${name}`;
  await Deno.mkdir(`${dir}/objects`, { recursive: true });
  await Deno.mkdir(`${dir}/refs/heads`, { recursive: true });
  await Deno.writeTextFile(`${dir}/HEAD`, "ref: refs/heads/main\n");
  return `${dir}/HEAD`;
}

/** Exchanges `src` and `alt` for 3 s, counting the exchanges in `swaps.txt`. */
const SWAPPER = [
  "import ctypes, time",
  "libc = ctypes.CDLL(None, use_errno=True)",
  "n = 0",
  "end = time.time() + 3",
  "while time.time() < end:",
  '    if libc.renameat2(-100, b"src", -100, b"alt", 2) == 0: n += 1',
  'open("swaps.txt", "w").write(str(n))',
].join("\n");

async function write(tools: ToolSet, path: string, content = "x\n"): Promise<void> {
  const result = await tools.call("write_file", { path, content });
  assertFalse(result.isError, result.text);
}

Deno.test({
  name:
    "a file write after the workspace's link was pointed elsewhere lands in the new workspace, not in the session's old one",
  ignore: skipWithoutBwrap(),
  fn: async () => {
    await using f = await makeFixture();
    const first = `${f.base}/first`;
    const second = `${f.base}/second`;
    await Deno.mkdir(first);
    await Deno.mkdir(second);
    const link = `${f.base}/link`;
    await Deno.symlink(first, link);
    await using t = await sandboxTools(sandboxed(link));
    assertFalse((await t.tools.call("bash", { command: "true" })).isError);
    await Deno.remove(link);
    await Deno.symlink(second, link);
    await write(t.tools, "a.txt", "second\n");
    assertEquals(await Deno.readTextFile(`${second}/a.txt`), "second\n");
    assertFalse(await exists(`${first}/a.txt`), "the write went to the session's old workspace");
  },
});

Deno.test({
  name:
    "another user's process swapping a folder with a link into a repository made while it runs: no write of this user's lands in its hooks",
  ignore: skipWithoutBwrap(),
  fn: async () => {
    await using f = await makeFixture();
    await using mine = await sandboxTools(sandboxed(f.workspace));
    await using theirs = await sandboxTools(sandboxed(f.workspace));
    await Deno.mkdir(`${f.workspace}/src`);
    // This user's session starts, and its command's walk is current.
    assertFalse((await mine.tools.call("bash", { command: "true" })).isError);
    // The other user's model swaps src with a link into late/.git/hooks (not there yet).
    const swapper = await theirs.tools.call("bash", {
      action: "start",
      command: `ln -s late/.git/hooks alt && python3 -c '${SWAPPER}'`,
    });
    assertFalse(swapper.isError, swapper.text);
    const { processId } = JSON.parse(swapper.text);
    // The person at the keyboard makes a repository meanwhile (a walk disables it as a plant,
    // but until one runs, git would run its hooks).
    await plantFromOutside(f.workspace, "late/.git");
    await Deno.mkdir(`${f.workspace}/late/.git/hooks`);
    let writes = 0;
    try {
      // Until the swapper is done (it writes its count), at most 10 s.
      const until = performance.now() + 10_000;
      while (performance.now() < until && !await exists(`${f.workspace}/swaps.txt`)) {
        await mine.tools.call("write_file", { path: "src/pre-commit", content: "#!/bin/sh\n" });
        writes++;
      }
    } finally {
      await theirs.tools.call("bash", { action: "stop", processId });
    }
    // The attack ran: the folder was swapped thousands of times while this user wrote.
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

/**
 * The walk before each sandboxed file write, attacked where a write skipping it (tried and not
 * kept, see docs/sandbox.md) let the supervisor, which follows links, write a hook: while the
 * model writes `pre-commit` through a folder, a racer exchanges that folder with a link into a
 * repository the person at the keyboard made after the workspace's first walk. The walk disables
 * that repository before each write (its `.git` renamed aside: the link then leads nowhere). The
 * racers: another user's process in this host process, a sandboxed stdio server that may only
 * read the repository, and a sandboxed process of a second toolroute host process for which the
 * repository is read-only. Also: a write after the workspace's link was pointed elsewhere goes to
 * the new workspace.
 *
 * @module
 */

import { assert, assertEquals, assertFalse } from "@std/assert";
import { spawnSandboxed } from "../../../../src/deno/sandbox/spawn_sandboxed.ts";
import { STDIO_SANDBOX_LIMITS } from "../../../../src/deno/mcp/stdio_sandbox.ts";
import { makeFixture } from "../_fixture.ts";
import { exists } from "../../../_helpers/exists.ts";
import { skipWithoutBwrap } from "../../../_helpers/bwrap.ts";
import {
  assertNoHookWritten,
  sandboxTools,
  swapperScript,
  userRepository,
  writeUntilSwapped,
} from "./_swap_race.ts";

const OTHER_HOST = new URL("./_other_host_swapper_main.ts", import.meta.url).pathname;

Deno.test({
  name:
    "another user's process swapping a folder with a link into a repository made while it runs: no write of this user's lands in its hooks",
  ignore: skipWithoutBwrap(),
  fn: async () => {
    await using f = await makeFixture();
    await using mine = await sandboxTools(f.workspace);
    await using theirs = await sandboxTools(f.workspace);
    await Deno.mkdir(`${f.workspace}/src`);
    assertFalse((await mine.tools.call("bash", { command: "true" })).isError);
    // The other user's model swaps src with a link into late/.git/hooks (not there yet).
    const script = swapperScript({
      folder: "src",
      link: "alt",
      target: "late/.git/hooks",
      seconds: 3,
    });
    const swapper = await theirs.tools.call("bash", {
      action: "start",
      command: `python3 -c '${script}'`,
    });
    assertFalse(swapper.isError, swapper.text);
    const { processId } = JSON.parse(swapper.text);
    // The person at the keyboard makes a repository meanwhile.
    await userRepository(`${f.workspace}/late/.git`);
    const swaps = `${f.workspace}/swaps.txt`;
    let writes = 0;
    try {
      writes = await writeUntilSwapped(mine.tools, { path: "src/pre-commit", swaps });
    } finally {
      await theirs.tools.call("bash", { action: "stop", processId });
    }
    await assertNoHookWritten(f.workspace, { swaps, writes });
  },
});

Deno.test({
  name:
    "a sandboxed stdio server swapping a folder of its root with a link into a repository it may only read: no file write lands in its hooks",
  ignore: skipWithoutBwrap(),
  fn: async () => {
    await using f = await makeFixture();
    const root = `${f.workspace}/server`;
    await Deno.mkdir(`${root}/d`, { recursive: true });
    await using mine = await sandboxTools(f.workspace);
    assertFalse((await mine.tools.call("bash", { command: "true" })).isError);
    await userRepository(`${f.workspace}/late/.git`);
    // The server: its root read-write, the rest of the workspace read-only.
    const script = swapperScript({
      folder: "d",
      link: "alt",
      target: "../late/.git/hooks",
      seconds: 3,
    });
    const { child } = await spawnSandboxed(
      {
        command: "/usr/bin/python3",
        args: ["-c", script],
        env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: "/nonexistent" },
        cwd: root,
      },
      { roots: [root], readOnly: [f.workspace], limits: STDIO_SANDBOX_LIMITS },
    );
    const swaps = `${root}/swaps.txt`;
    let writes = 0;
    try {
      writes = await writeUntilSwapped(mine.tools, { path: "server/d/pre-commit", swaps });
    } finally {
      child.kill("SIGKILL");
      await child.status;
      for (const stream of [child.stdout, child.stderr]) await stream.cancel().catch(() => {});
      await child.stdin.close().catch(() => {});
    }
    // The server itself could not write there (read-only for it); only this user's writes could.
    await assertNoHookWritten(f.workspace, { swaps, writes });
  },
});

Deno.test({
  name:
    "a sandboxed process of another toolroute host process swapping a folder with a link into a repository: no file write of this process lands in its hooks",
  ignore: skipWithoutBwrap(),
  fn: async () => {
    await using f = await makeFixture();
    await using mine = await sandboxTools(f.workspace);
    await Deno.mkdir(`${f.workspace}/src`);
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
    const swaps = `${f.workspace}/swaps.txt`;
    let writes = 0;
    try {
      assert((await reader.read()).value === "started\n", "the other host process did not start");
      writes = await writeUntilSwapped(mine.tools, { path: "src/pre-commit", swaps });
    } finally {
      await other.status;
      await reader.cancel();
    }
    await assertNoHookWritten(f.workspace, { swaps, writes });
  },
});

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
    await using t = await sandboxTools(link);
    assertFalse((await t.tools.call("bash", { command: "true" })).isError);
    await Deno.remove(link);
    await Deno.symlink(second, link);
    const result = await t.tools.call("write_file", { path: "a.txt", content: "second\n" });
    assertFalse(result.isError, result.text);
    assertEquals(await Deno.readTextFile(`${second}/a.txt`), "second\n");
    assertFalse(await exists(`${first}/a.txt`), "the write went to the session's old workspace");
  },
});

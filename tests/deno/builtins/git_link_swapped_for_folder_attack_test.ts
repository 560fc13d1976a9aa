// A user's `.git` that is a symbolic link (the `repo` tool's layout, a link to a gitdir kept
// elsewhere) is no mount of its own: bubblewrap binds a link's target, and only when it lies in
// the workspace. A command may then remove the link and make a `.git` folder in its place, with
// a config whose core.fsmonitor git on the host runs. On ext4 the new folder takes the freed
// link's inode at once, so its `dev:ino` is the one the first walk recorded: the containment
// walk must still see that a link became a folder.
import { assert, assertEquals, assertFalse } from "@std/assert";
import {
  containSteps,
  plantedNotice,
} from "../../../src/deno/builtins/sandbox/planted_repositories.ts";
import { runSteps } from "../../../src/deno/sandbox/walk_steps.ts";
import { ToolRouter } from "@toolroute/toolroute";
import { builtinTools } from "@toolroute/toolroute/deno";
import { makeFixture } from "./_fixture.ts";
import { exists } from "../../_helpers/exists.ts";
import { skipWithoutBwrap } from "../../_helpers/bwrap.ts";

/** Replaces the link at `path` by a repository folder with a hostile config; its inode after. */
function plantFolderOverLink(path: string): number {
  Deno.removeSync(path);
  Deno.mkdirSync(`${path}/objects`, { recursive: true });
  Deno.mkdirSync(`${path}/refs`);
  Deno.writeTextFileSync(`${path}/HEAD`, "ref: refs/heads/main\n");
  Deno.writeTextFileSync(`${path}/config`, "[core]\n\tfsmonitor = touch /tmp/pwned\n");
  return Deno.lstatSync(path).ino!;
}

Deno.test("a .git link swapped for a repository folder with the link's inode is disabled at the next walk", async () => {
  const parent = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_gitlink_" }));
  try {
    const paths = Object.freeze([".git"]);
    // The user's own: a `.git` link to a gitdir outside the workspace (absent here), then the
    // attack between two walks. Whether a new folder takes the freed inode depends on where
    // ext4 places folders (near their parent while that block group has room), so each attempt
    // uses a new workspace, placed where there is room; the attack must hit the seam to count.
    let root = "";
    let reused = false;
    for (let attempt = 0; attempt < 50 && !reused; attempt++) {
      root = `${parent}/ws${attempt}`;
      await Deno.mkdir(root);
      await Deno.symlink("/nonexistent/gitdirs/ws.git", `${root}/.git`);
      const linkIno = (await Deno.lstat(`${root}/.git`)).ino!;
      runSteps(containSteps({ declared: root, real: root }, paths)); // the baseline: the user's
      assertEquals(plantedNotice(root), undefined);
      reused = plantFolderOverLink(`${root}/.git`) === linkIno;
    }
    // It ran, and it hit the seam: the folder has the link's inode.
    assert(reused, "the file system never reused the link's inode in 50 workspaces");
    runSteps(containSteps({ declared: root, real: root }, paths));
    assertFalse(await exists(`${root}/.git`), "the planted .git folder was left active");
    assert(await exists(`${root}/.git.disabled-by-toolroute/config`));
    assert((plantedNotice(root) ?? "").includes('".git"'));
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});

Deno.test({
  name:
    "a sandboxed command that swaps the user's .git link for a repository folder finds it disabled after the command",
  ignore: skipWithoutBwrap(),
  fn: async () => {
    await using fx = await makeFixture();
    const ws = fx.workspace;
    await Deno.symlink("/nonexistent/gitdirs/ws.git", `${ws}/.git`);
    const linkIno = (await Deno.lstat(`${ws}/.git`)).ino!;
    await using router = new ToolRouter({
      builtins: builtinTools({ workspace: ws, bash: { sandbox: "bwrap" } }),
    });
    const tools = await router.expose({ builtins: ["bash"] });
    assertFalse((await tools.call("bash", { command: "true" })).isError);
    const result = await tools.call("bash", {
      command: "rm .git && mkdir .git && " +
        "stat -c '%i %F' .git && mkdir .git/objects .git/refs && " +
        "echo 'ref: refs/heads/main' > .git/HEAD && " +
        "printf '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n' > .git/config",
    });
    assertFalse(result.isError, result.text);
    const body = JSON.parse(result.text);
    // It ran inside the sandbox: the link became a folder (on ext4, with the link's inode).
    const [ino, type] = body.stdout.trim().split(" ");
    assertEquals(type, "directory");
    if (Number(ino) !== linkIno) console.log("the file system did not reuse the link's inode");
    assertFalse(await exists(`${ws}/.git`), "the planted .git folder was left active");
    assert(await exists(`${ws}/.git.disabled-by-toolroute/config`));
    assert((body.notice ?? "").includes('".git"'), body.notice);
  },
});

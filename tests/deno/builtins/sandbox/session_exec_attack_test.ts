import { assert, assertEquals, assertMatch } from "@std/assert";
import { ToolRouter } from "@toolroute/toolroute";
import { builtinTools } from "@toolroute/toolroute/deno";
import { skipWithoutBwrap } from "../../../_helpers/bwrap.ts";

// Each way a command can make a protected entry appear in a directory whose listing the
// protected-mounts walk keeps (older than its racy window): a new `.git`, one renamed into place,
// one made through a renamed parent, a symlink to a directory inside the workspace, and the
// whole directory replaced (another inode). The next command, whose session is taken without a
// wait when the mounts are unchanged, must find the entry read-only, or gone: a .git that was not
// there before is renamed aside after the command that made it (a planted repository never stays).
const ATTACKS: { name: string; plant: string; target: string; git: string }[] = [
  {
    name: "mkdir",
    plant: "mkdir -p a/.git/hooks",
    target: "a/.git/hooks/pre-commit",
    git: "a/.git",
  },
  {
    name: "rename into place",
    plant: "mkdir -p b/x/hooks && mv b/x b/.GIT",
    target: "b/.GIT/hooks/pre-commit",
    git: "b/.GIT",
  },
  {
    name: "parent renamed",
    plant: "mkdir -p tmpdir/.git/hooks && mv c c.old && mv tmpdir c",
    target: "c/.git/hooks/pre-commit",
    git: "c/.git",
  },
  {
    name: "symlink",
    plant: "mkdir -p real/hooks && ln -s ../real d/.git",
    target: "d/.git/hooks/x",
    git: "d/.git",
  },
  {
    name: "directory replaced",
    plant: "rm -rf e && mkdir -p e/.git/hooks",
    target: "e/.git/hooks/pre-commit",
    git: "e/.git",
  },
];

Deno.test({
  name:
    "a protected entry a command plants in a directory the walk had cached is read-only for the next command in the same session",
  ignore: skipWithoutBwrap(),
  async fn() {
    const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_exec_" }));
    for (const dir of ["a", "b", "c", "d", "e"]) await Deno.mkdir(`${workspace}/${dir}`);
    const router = new ToolRouter({ builtins: builtinTools({ workspace, bash: true }) });
    try {
      const tools = await router.expose({ builtins: ["bash"] });
      const run = async (command: string) =>
        JSON.parse((await tools.call("bash", { command })).text);
      // Past the walk's racy window (3 s after a directory's last change): listings are kept.
      await new Promise((resolve) => setTimeout(resolve, 4_200));
      assertEquals((await run("true")).exitCode, 0);
      let ran = 0;
      for (const attack of ATTACKS) {
        const planted = await run(attack.plant);
        assertEquals(planted.exitCode, 0, `${attack.name}: ${planted.stderr}`);
        ran++;
        const wrote = await run(`echo evil > ${attack.target}`);
        assert(wrote.exitCode !== 0, `${attack.name}: the command wrote ${attack.target}`);
        assertMatch(wrote.stderr, /Read-only file system|No such file or directory/, attack.name);
        const git = await Deno.lstat(`${workspace}/${attack.git}`).catch(() => undefined);
        if (git !== undefined) assertMatch(wrote.stderr, /Read-only/, `${attack.name}: not bound`);
        const info = await Deno.lstat(`${workspace}/${attack.target}`).catch(() => undefined);
        assertEquals(info, undefined, `${attack.name}: ${attack.target} exists`);
      }
      assertEquals(ran, ATTACKS.length);
    } finally {
      await router.close();
      await Deno.remove(workspace, { recursive: true });
    }
  },
});

import {
  assert,
  assertEquals,
  assertMatch,
  assertRejects,
  assertStringIncludes,
} from "@std/assert";
import {
  protectedMountsSteps,
  type ProtectedScanCache,
} from "../../../../src/deno/builtins/sandbox/protected_mounts.ts";
import { runSteps, runStepsYielding } from "../../../../src/deno/sandbox/walk_steps.ts";
import { ToolError } from "../../../../src/core/tool_error.ts";
import { bashFixture, bashUnderTest } from "../_bash_fixture.ts";
import { skipWithoutBwrap } from "../../../_helpers/bwrap.ts";

/** The walk, with the event loop let in between, as the sandbox runs it. */
const protectedMounts = (...args: Parameters<typeof protectedMountsSteps>) =>
  runStepsYielding(protectedMountsSteps(...args));

async function tree(paths: string[]): Promise<{ root: string } & AsyncDisposable> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_prot_" }));
  for (const path of paths) await Deno.mkdir(`${root}/${path}`, { recursive: true });
  return { root, [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }) };
}

Deno.test("protectedMounts() finds .git at any depth, in any case and with trailing dots", async () => {
  await using ws = await tree([
    ".git/hooks",
    "vendor/lib/.git/hooks",
    "a/b/c/.GIT",
    "d/.git.",
    "e/not-git/x",
  ]);
  const scan = await protectedMounts({ declared: ws.root, real: ws.root }, [".git"], {
    cache: new Map(),
  });
  assertEquals(
    scan.mounts.map((m) => m.dest.slice(ws.root.length + 1)).sort(),
    [".git", "a/b/c/.GIT", "d/.git.", "vendor/lib/.git"],
  );
  assertEquals(
    scan.pinned.map((m) => m.dest.slice(ws.root.length + 1)).sort(),
    ["a", "a/b", "a/b/c", "d", "vendor", "vendor/lib"],
  );
  assert(scan.directories >= 8, `walked ${scan.directories} directories`);
});

Deno.test("protectedMounts() maps real paths onto the declared workspace and binds a protected symlink's target", async () => {
  await using ws = await tree(["real/hooks-dir", "sub"]);
  await Deno.symlink("../real", `${ws.root}/sub/.git`);
  const scan = await protectedMounts({ declared: "/declared/ws", real: ws.root }, [".git"], {
    cache: new Map(),
  });
  const real = await Deno.lstat(`${ws.root}/real`);
  assertEquals(scan.mounts, [{
    source: `${ws.root}/real`,
    dest: "/declared/ws/real",
    identity: `${real.dev}:${real.ino}`,
  }]);
  assertEquals(scan.pinned, [], "a top-level target needs no pinned directory");
});

Deno.test("protectedMounts() matches a protected path with a slash only at that place", async () => {
  await using ws = await tree(["config/secrets", "other/config/secrets"]);
  const scan = await protectedMounts({ declared: ws.root, real: ws.root }, ["config/secrets"], {
    cache: new Map(),
  });
  assertEquals(scan.mounts.map((m) => m.dest), [`${ws.root}/config/secrets`]);
});

Deno.test("protectedMounts() reuses unchanged old directories and sees a .git added since", async () => {
  await using ws = await tree(["a/b", "c"]);
  const cache: ProtectedScanCache = new Map();
  const workspace = { declared: ws.root, real: ws.root };
  // The walks run "a minute later": the directories are no longer recently changed.
  const later = { cache, now: () => Date.now() + 60_000 };
  const first = await protectedMounts(workspace, [".git"], later);
  assertEquals(first.listed, first.directories);
  const second = await protectedMounts(workspace, [".git"], later);
  assertEquals(second.listed, 0, "nothing changed: no directory listed again");
  // The clock above is a minute ahead, the file system's is not: a change within the same tick
  // of the kernel's coarse clock (a few ms) would leave the times as they were, which the real
  // clock's racy-listing rule covers and this one skips. Let a tick pass.
  await new Promise((resolve) => setTimeout(resolve, 25));
  await Deno.mkdir(`${ws.root}/a/b/.git`);
  const third = await protectedMounts(workspace, [".git"], later);
  assertEquals(third.mounts.map((m) => m.dest), [`${ws.root}/a/b/.git`]);
  assertEquals(third.listed, 1, "only the changed directory is listed again");
});

Deno.test("protectedMounts() never reuses a listing taken within seconds of its directory's change", async () => {
  await using ws = await tree(["a/b", "c"]);
  const cache: ProtectedScanCache = new Map();
  const workspace = { declared: ws.root, real: ws.root };
  // Listed now, just after the directories were made: a change in the same second would leave
  // ctime and mtime as they are, so these listings are not trusted later, however much later.
  const racy = await protectedMounts(workspace, [".git"], { cache });
  assertEquals(racy.listed, racy.directories);
  const later = { cache, now: () => Date.now() + 60_000 };
  const again = await protectedMounts(workspace, [".git"], later);
  assertEquals(again.listed, again.directories, "every racy listing is taken again");
  const settled = await protectedMounts(workspace, [".git"], later);
  assertEquals(settled.listed, 0, "a listing taken long after the change is reused");
});

Deno.test("protectedMounts() sees a .git made in the second of its folder's listing, the folder's mtime set back", async () => {
  // The case RACY_MS exists for: Deno's ctime has whole seconds, and a command can put a folder's
  // mtime back (utimes), not its ctime. A listing taken late in the second of the folder's last
  // change, then a .git made in that same second and the mtime put back: inode, ctime and mtime
  // are all as listed. Only the margin makes the next walk list the folder again (with a margin
  // below the listing's place in its second, 900 ms and more here, this test fails).
  await using ws = await tree([]);
  const workspace = { declared: ws.root, real: ws.root };
  const cache: ProtectedScanCache = new Map();
  const walk = () => runSteps(protectedMountsSteps(workspace, [".git"], { cache }))!;
  for (let attempt = 0; attempt < 20; attempt++) {
    while (Date.now() % 1000 < 900) {
      await new Promise((resolve) => setTimeout(resolve, Math.max(1, 895 - Date.now() % 1000)));
    }
    const dir = `${ws.root}/a${attempt}`;
    Deno.mkdirSync(dir);
    const made = Deno.lstatSync(dir);
    assertEquals(walk().mounts, []);
    Deno.mkdirSync(`${dir}/.git`);
    Deno.utimeSync(dir, made.atime!, made.mtime!);
    const attacked = Deno.lstatSync(dir);
    if (attacked.ctime!.getTime() !== made.ctime!.getTime()) {
      // The second ended meanwhile (a slow machine): the ctime moved, which is no attack; again.
      Deno.removeSync(dir, { recursive: true });
      continue;
    }
    assertEquals([attacked.ino, attacked.mtime], [made.ino, made.mtime], "the times are put back");
    const found = walk();
    assertEquals(found.mounts.map((m) => m.dest), [`${dir}/.git`], "the planted .git is bound");
    return;
  }
  throw new Error("no attempt landed within one second: the machine is too slow to attack");
});

Deno.test("protectedMounts() refuses a workspace over its directory bound", async () => {
  await using ws = await tree(["a", "b", "c", "d"]);
  const scan = await protectedMounts({ declared: ws.root, real: ws.root }, [".git"], {
    maxDirectories: 3,
  });
  assert(scan.overflow instanceof ToolError);
  assertStringIncludes(scan.overflow?.message ?? "", "more than 3 directories");
});

Deno.test({
  name: "bash under bwrap cannot write a nested .git (RT-1): hooks and config stay unchanged",
  ignore: skipWithoutBwrap(),
  async fn() {
    await using fx = await bashFixture();
    await Deno.mkdir(`${fx.workspace}/vendor/lib/.git/hooks`, { recursive: true });
    await Deno.writeTextFile(`${fx.workspace}/vendor/lib/.git/config`, "[core]\n");
    await Deno.mkdir(`${fx.workspace}/deep/x/y/.Git`, { recursive: true });
    await using bash = bashUnderTest({ workspace: fx.workspace, bash: { sandbox: "bwrap" } });
    const result = await bash.json({
      command: "echo evil > vendor/lib/.git/hooks/pre-commit; " +
        "echo '[core] fsmonitor = evil' >> vendor/lib/.git/config; " +
        "echo evil > deep/x/y/.Git/HEAD; mv vendor/lib vendor/lib2; mv vendor v2; " +
        "echo fine > ok.txt",
    });
    assertStringIncludes(String(result.stderr), "Read-only file system");
    assertStringIncludes(String(result.stderr), "Device or resource busy");
    assertEquals(await Deno.readTextFile(`${fx.workspace}/vendor/lib/.git/config`), "[core]\n");
    await assertRejects(() => Deno.lstat(`${fx.workspace}/vendor/lib/.git/hooks/pre-commit`));
    await assertRejects(() => Deno.lstat(`${fx.workspace}/deep/x/y/.Git/HEAD`));
    assertEquals(await Deno.readTextFile(`${fx.workspace}/ok.txt`), "fine\n");
  },
});

Deno.test({
  name: "bash under bwrap: a .git made by one command is read-only for the next one",
  ignore: skipWithoutBwrap(),
  async fn() {
    await using fx = await bashFixture();
    await using bash = bashUnderTest({ workspace: fx.workspace, bash: { sandbox: "bwrap" } });
    const made = await bash.json({ command: "mkdir -p sub/.git/hooks && echo made" });
    assertEquals(made.stdout, "made\n");
    const result = await bash.json({ command: "echo evil > sub/.git/hooks/post-checkout" });
    // A .git a command made is disabled (renamed aside) after it, or read-only if still there.
    assertMatch(String(result.stderr), /Read-only file system|No such file or directory/);
    await assertRejects(() => Deno.lstat(`${fx.workspace}/sub/.git/hooks/post-checkout`));
  },
});

Deno.test({
  name:
    "the sandbox refuses to run a command when a protected mount is not the file that was found",
  ignore: skipWithoutBwrap(),
  async fn() {
    await using ws = await tree(["sub/.git"]);
    const { bwrapCommand } = await import(
      "../../../../src/deno/sandbox/bwrap_command.ts"
    );
    const scan = await protectedMounts({ declared: ws.root, real: ws.root }, [".git"], {
      cache: new Map(),
    });
    const run = async (identity?: string) => {
      const protectedPaths = scan.mounts.map((m) => identity ? { ...m, identity } : m);
      const output = await new Deno.Command("bwrap", {
        args: bwrapCommand({
          workspace: { source: ws.root, dest: ws.root },
          readOnlyRoots: [],
          protectedPaths,
          pinnedDirs: scan.pinned,
          cwd: ws.root,
          command: ["bash", "-c", "echo ran > ran.txt"],
        }),
        stdout: "piped",
        stderr: "piped",
      }).output();
      return { code: output.code, stderr: new TextDecoder().decode(output.stderr) };
    };
    // As a racing swap would leave it: the mount point is some other file.
    const swapped = await run("1:1");
    assertEquals(swapped.code, 126);
    assertStringIncludes(swapped.stderr, "the command was not run");
    await assertRejects(() => Deno.lstat(`${ws.root}/ran.txt`));
    const found = await run();
    assertEquals(found.code, 0, found.stderr);
    assertEquals(await Deno.readTextFile(`${ws.root}/ran.txt`), "ran\n");
  },
});

Deno.test("protectedMounts() refuses more protected entries than one sandbox can bind", async () => {
  await using ws = await tree(Array.from({ length: 760 }, (_, i) => `r${i}/.git`));
  const scan = await protectedMounts({ declared: ws.root, real: ws.root }, [".git"], {
    cache: new Map(),
  });
  // 760 entries and their 760 parents: over the 1,500 mounts one bwrap can take.
  assert(scan.overflow instanceof ToolError);
  assertStringIncludes(scan.overflow?.message ?? "", "more than 1500 read-only mounts");
});

Deno.test({
  name: "bash under bwrap runs with as many protected mounts as the bound allows",
  ignore: skipWithoutBwrap(),
  async fn() {
    await using fx = await bashFixture();
    for (let i = 0; i < 740; i++) {
      await Deno.mkdir(`${fx.workspace}/r${i}/.git`, { recursive: true });
    }
    await using bash = bashUnderTest({ workspace: fx.workspace, bash: { sandbox: "bwrap" } });
    const result = await bash.json({ command: "echo ok; echo evil > r739/.git/x" });
    assertEquals(result.stdout, "ok\n", String(result.stderr));
    assertStringIncludes(String(result.stderr), "Read-only file system");
  },
});

Deno.test("protectedMounts() binds a git directory signature whole and reports every repository, .git files included", async () => {
  await using ws = await tree([
    "bare/objects",
    "bare/refs",
    "deep/x/.git/objects",
    "deep/x/.git/refs",
    "plain",
  ]);
  await Deno.writeTextFile(`${ws.root}/bare/HEAD`, "ref: refs/heads/main\n");
  await Deno.writeTextFile(`${ws.root}/deep/x/.git/HEAD`, "ref: refs/heads/main\n");
  await Deno.writeTextFile(`${ws.root}/plain/.git`, "gitdir: ../bare\n");
  const scan = await protectedMounts({ declared: ws.root, real: ws.root }, [".git"], {
    cache: new Map(),
  });
  assertEquals(
    scan.mounts.map((m) => m.dest.slice(ws.root.length + 1)).sort(),
    ["bare", "deep/x/.git", "plain/.git"],
  );
  assertEquals(
    scan.signatures.map((s) => `${s.rel}:${s.kind}`).sort(),
    ["bare:folder", "deep/x/.git:folder", "plain/.git:file"],
  );
});

Deno.test("protectedMounts() binds the repository entries of a workspace that is itself one", async () => {
  await using ws = await tree(["objects", "refs", "hooks", "src"]);
  await Deno.writeTextFile(`${ws.root}/HEAD`, "ref: refs/heads/main\n");
  await Deno.writeTextFile(`${ws.root}/config`, "[core]\n");
  const scan = await protectedMounts({ declared: ws.root, real: ws.root }, [".git"], {
    cache: new Map(),
  });
  assertEquals(
    scan.mounts.map((m) => m.dest.slice(ws.root.length + 1)).sort(),
    ["HEAD", "config", "hooks", "objects", "refs"],
  );
  assertEquals(scan.signatures.map((s) => s.rel), [""]);
});

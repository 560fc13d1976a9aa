// Adversarial regression tests of the built-ins' confinement: every attack here is one that the
// security review (notes/review_sandbox.md) found to HOLD. Attacks that succeeded are written up
// there with a reproduction, not here (they would fail until fixed).
//
// Everything goes through `builtinTools(ctx)` + `ToolRouter` + `toolSet.call`, as a model would.
import { assert, assertEquals, assertMatch } from "@std/assert";
import { ToolRouter, type ToolSet } from "@toolroute/toolroute";
import { type BuiltinContext, builtinTools } from "@toolroute/toolroute/deno";
import { skipWithoutBwrap } from "../../_helpers/bwrap.ts";
import { leftovers } from "./_bash_fixture.ts";

const SECRET = "ADVERSARIAL-OUTSIDE-SECRET-5d1e";
const INSIDE = "INSIDE-CONTENT-MARKER-91c2";

interface Arena extends AsyncDisposable {
  base: string;
  ws: string;
  ro: string;
  out: string;
  sib: string;
  tools: ToolSet;
  router: ToolRouter;
  call(name: string, args: Record<string, unknown>): Promise<Result>;
}

interface Result {
  text: string;
  isError: boolean;
  code?: string;
}

/** A workspace (with `.git/hooks`), a read-only root, an outside dir and a `<ws>_evil` sibling. */
async function arena(extra: Partial<BuiltinContext> = {}): Promise<Arena> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_adv_" }));
  const ws = `${base}/ws`;
  const ro = `${base}/ro`;
  const out = `${base}/outside`;
  const sib = `${base}/ws_evil`;
  for (const dir of [ws, ro, out, sib]) await Deno.mkdir(dir);
  await Deno.mkdir(`${ws}/.git/hooks`, { recursive: true });
  await Deno.writeTextFile(`${ws}/.git/config`, "[core]\n");
  await Deno.writeTextFile(`${ws}/hello.txt`, "hello\n");
  await Deno.writeTextFile(`${ro}/ro.txt`, "read only\n");
  await Deno.writeTextFile(`${out}/secret.txt`, `${SECRET}\n`);
  await Deno.writeTextFile(`${sib}/secret.txt`, `${SECRET}\n`);
  const context = { workspace: ws, readOnlyRoots: [ro], ...extra } as BuiltinContext;
  const router = new ToolRouter({ builtins: builtinTools(context) });
  const names = ["read_file", "write_file", "apply_patch"];
  if (extra.bash) names.push("bash");
  const tools = await router.expose({ builtins: names });
  return {
    base,
    ws,
    ro,
    out,
    sib,
    tools,
    router,
    call: (name, args) => tools.call(name, args),
    async [Symbol.asyncDispose]() {
      await router.close();
      await Deno.remove(base, { recursive: true });
    },
  };
}

/** Asserts a refusal that echoes neither outside content nor the outside directory. */
function assertRefused(result: Result, code: string, hidden: string[], label: string): void {
  assertEquals(result.isError, true, `${label}: expected a refusal, got ${result.text}`);
  assertEquals(result.code, code, `${label}: ${result.text}`);
  for (const text of [SECRET, ...hidden]) {
    assert(!result.text.includes(text), `${label}: the error echoes ${text}: ${result.text}`);
  }
}

async function listing(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) names.push(entry.name);
  return names.sort();
}

async function assertOutsideUntouched(a: Arena): Promise<void> {
  assertEquals(await listing(a.out), ["secret.txt"]);
  assertEquals(await Deno.readTextFile(`${a.out}/secret.txt`), `${SECRET}\n`);
  assertEquals(await listing(a.sib), ["secret.txt"]);
  assertEquals(await listing(a.base), ["outside", "ro", "ws", "ws_evil"]);
  assertEquals(await listing(a.ro), ["ro.txt"]);
}

async function assertGitUntouched(a: Arena): Promise<void> {
  assertEquals(await listing(`${a.ws}/.git`), ["config", "hooks"]);
  assertEquals(await listing(`${a.ws}/.git/hooks`), []);
  assertEquals(await Deno.readTextFile(`${a.ws}/.git/config`), "[core]\n");
}

// ---------------------------------------------------------------------------------------------
// Lexical escapes

Deno.test("read_file refuses .., absolute, sibling-prefix, /proc and /dev escapes without leaking", async () => {
  await using a = await arena();
  const attempts = [
    "../outside/secret.txt",
    `${a.out}/secret.txt`,
    `${a.sib}/secret.txt`,
    "../ws_evil/secret.txt",
    `${a.ws}/../ws_evil/secret.txt`,
    `${a.ws}_evil/secret.txt`,
    "sub/../../outside/secret.txt",
    `/proc/self/root${a.out}/secret.txt`,
    `/proc/${Deno.pid}/root${a.out}/secret.txt`,
    "/proc/self/cwd",
    "/proc/self/environ",
    "/dev/stdin",
    "/dev/zero",
    "/etc/passwd",
    "..\\outside\\secret.txt",
  ];
  for (const path of attempts) {
    assertRefused(await a.call("read_file", { path }), "permission_denied", [], path);
  }
});

Deno.test("read_file rejects NUL bytes, ~ expansion and empty paths as invalid arguments", async () => {
  await using a = await arena();
  for (const path of ["hello.txt\0", "\0../outside/secret.txt", "~/secret.txt", "~root/x", ""]) {
    assertRefused(
      await a.call("read_file", { path }),
      "invalid_arguments",
      [],
      JSON.stringify(path),
    );
  }
  // `~` in the middle is an ordinary name, and it stays inside the workspace.
  assertRefused(await a.call("read_file", { path: "a/~/x" }), "tool_error", [], "a/~/x");
});

Deno.test("Unicode look-alikes, file URLs and repeated slashes stay inside the workspace", async () => {
  await using a = await arena();
  // Full-width dots and a URL are plain (missing) names inside the workspace, never a traversal.
  for (const path of ["\uff0e\uff0e/outside/secret.txt", `file://${a.out}/secret.txt`]) {
    const result = await a.call("read_file", { path });
    assertRefused(result, "tool_error", [], path);
    assertMatch(result.text, /does not exist/);
  }
  const ok = await a.call("read_file", { path: "./hello.txt/" });
  assertEquals(ok.isError, false, ok.text);
  assertEquals(JSON.parse(ok.text).content, "hello\n");
  const double = await a.call("read_file", { path: `${a.ws}//hello.txt` });
  assertEquals(JSON.parse(double.text).content, "hello\n");
});

Deno.test("write_file and apply_patch refuse lexical escapes and leave the outside untouched", async () => {
  await using a = await arena();
  for (const path of ["../outside/x.txt", `${a.out}/x.txt`, "../ws_evil/x.txt", `${a.ro}/x.txt`]) {
    for (const mode of ["create", "overwrite", "append"]) {
      const result = await a.call("write_file", { path, content: "PWN", mode });
      assertRefused(result, "permission_denied", [], `${mode} ${path}`);
    }
  }
  assertRefused(
    await a.call("write_file", { path: `${a.out}/secret.txt`, content: "PWN", mode: "append" }),
    "permission_denied",
    [],
    "append outside",
  );
  await assertOutsideUntouched(a);
});

// ---------------------------------------------------------------------------------------------
// Symlinks and hard links

Deno.test("symlinks out of the workspace (file, dir, chained, dangling, /dev, /proc) are refused for reads and writes", async () => {
  await using a = await arena();
  await Deno.symlink(`${a.out}/secret.txt`, `${a.ws}/file_link`);
  await Deno.symlink(a.out, `${a.ws}/dir_link`);
  await Deno.symlink(`${a.ws}/dir_link`, `${a.ws}/chain1`);
  await Deno.symlink("chain1", `${a.ws}/chain2`);
  await Deno.symlink(`${a.out}/new.txt`, `${a.ws}/dangling`);
  await Deno.symlink("../outside/also_new.txt", `${a.ws}/dangling_rel`);
  await Deno.symlink("/dev/zero", `${a.ws}/zero`);
  await Deno.symlink(`/proc/self/root${a.out}`, `${a.ws}/proc_link`);
  await Deno.symlink(a.sib, `${a.ws}/sib_link`);
  const reads = [
    "file_link",
    "dir_link/secret.txt",
    "chain1/secret.txt",
    "chain2/secret.txt",
    "dangling",
    "dangling_rel",
    "zero",
    "proc_link/secret.txt",
    "sib_link/secret.txt",
  ];
  for (const path of reads) {
    assertRefused(await a.call("read_file", { path }), "permission_denied", [a.out, a.sib], path);
  }
  const writes = [
    ...reads,
    "dir_link/new.txt",
    "chain2/deep/er/new.txt",
    "sib_link/new.txt",
  ];
  for (const path of writes) {
    for (const mode of ["create", "overwrite", "append"]) {
      const result = await a.call("write_file", { path, content: "PWN", mode });
      assertRefused(result, "permission_denied", [a.out, a.sib], `${mode} ${path}`);
    }
  }
  await assertOutsideUntouched(a);
});

Deno.test("a symlinked parent of a new file is refused before any directory is created", async () => {
  await using a = await arena();
  await Deno.mkdir(`${a.ws}/sub`);
  await Deno.symlink(a.out, `${a.ws}/sub/p`);
  const result = await a.call("write_file", { path: "sub/p/q/r/new.txt", content: "PWN" });
  assertRefused(result, "permission_denied", [a.out], "sub/p/q/r/new.txt");
  const patch = await a.call("apply_patch", {
    patch: "*** Begin Patch\n*** Add File: sub/p/q2/new.txt\n+PWN\n*** End Patch",
  });
  assertRefused(patch, "permission_denied", [a.out], "patch through symlinked parent");
  await assertOutsideUntouched(a);
  assertEquals(await listing(`${a.ws}/sub`), ["p"]);
});

Deno.test("a symlink into a read-only root is readable but not writable", async () => {
  await using a = await arena();
  await Deno.symlink(a.ro, `${a.ws}/ro_link`);
  const read = await a.call("read_file", { path: "ro_link/ro.txt" });
  assertEquals(JSON.parse(read.text).content, "read only\n");
  for (const path of ["ro_link/ro.txt", "ro_link/new.txt"]) {
    assertRefused(
      await a.call("write_file", { path, content: "PWN" }),
      "permission_denied",
      [a.ro],
      path,
    );
  }
  await Deno.symlink(a.out, `${a.ro}/escape`);
  assertRefused(
    await a.call("read_file", { path: `${a.ro}/escape/secret.txt` }),
    "permission_denied",
    [a.out],
    "ro/escape",
  );
  await Deno.remove(`${a.ro}/escape`);
  await assertOutsideUntouched(a);
});

Deno.test("symlink loops end with a tool error, not a hang", async () => {
  await using a = await arena();
  await Deno.symlink("loop_b", `${a.ws}/loop_a`);
  await Deno.symlink("loop_a", `${a.ws}/loop_b`);
  assertRefused(await a.call("read_file", { path: "loop_a" }), "tool_error", [], "read loop");
  assertRefused(
    await a.call("write_file", { path: "loop_a/x", content: "x" }),
    "tool_error",
    [],
    "write loop",
  );
});

Deno.test("writing through a hard link to an outside file replaces the link, never the outside file", async () => {
  await using a = await arena();
  await Deno.link(`${a.out}/secret.txt`, `${a.ws}/hard_overwrite`);
  await Deno.link(`${a.out}/secret.txt`, `${a.ws}/hard_append`);
  await Deno.link(`${a.out}/secret.txt`, `${a.ws}/hard_patch`);
  const overwrite = await a.call("write_file", { path: "hard_overwrite", content: "PWN" });
  assertEquals(overwrite.isError, false, overwrite.text);
  const append = await a.call("write_file", {
    path: "hard_append",
    content: "PWN",
    mode: "append",
  });
  assertEquals(append.isError, false, append.text);
  const patch = await a.call("apply_patch", {
    patch: `*** Begin Patch\n*** Update File: hard_patch\n@@\n-${SECRET}\n+PWN\n*** End Patch`,
  });
  assertEquals(patch.isError, false, patch.text);
  await assertOutsideUntouched(a);
  assertEquals((await Deno.stat(`${a.out}/secret.txt`)).nlink, 1); // every link was replaced
});

// ---------------------------------------------------------------------------------------------
// Protected paths

Deno.test("protected .git refuses case variants, dot segments, absolute forms, symlinks and hard links", async () => {
  await using a = await arena();
  await Deno.symlink(`${a.ws}/.git`, `${a.ws}/git_link`);
  await Deno.symlink(`${a.ws}/.git/hooks`, `${a.ws}/hooks_link`);
  const paths = [
    ".git/hooks/pre-commit",
    ".GIT/hooks/pre-commit",
    ".Git/config",
    ".git/../.git/hooks/pre-commit",
    "./.git/hooks/pre-commit",
    "a/../.git/hooks/pre-commit",
    ".git",
    ".git/",
    ".git/config",
    `${a.ws}/.git/hooks/pre-commit`,
    `${a.ws}//.git///hooks/pre-commit`,
    `${a.ws}/./.git/hooks/./pre-commit`,
    "git_link/hooks/pre-commit",
    "hooks_link/pre-commit",
  ];
  for (const path of paths) {
    for (const mode of ["create", "overwrite", "append"]) {
      const result = await a.call("write_file", { path, content: "#!/bin/sh\necho pwned\n", mode });
      assertRefused(result, "permission_denied", [], `${mode} ${path}`);
      assertMatch(result.text, /read-only/);
    }
  }
  await assertGitUntouched(a);
  // A hard link to a .git file: the write replaces the link, the .git file keeps its content.
  await Deno.link(`${a.ws}/.git/config`, `${a.ws}/config_link`);
  const linked = await a.call("write_file", {
    path: "config_link",
    content: "[core]\n\thooksPath=x\n",
  });
  assertEquals(linked.isError, false, linked.text);
  await Deno.remove(`${a.ws}/config_link`);
  await assertGitUntouched(a);
});

Deno.test("protected .git also holds in nested repositories, for write_file and apply_patch", async () => {
  await using a = await arena();
  await Deno.mkdir(`${a.ws}/vendor/lib/.git/hooks`, { recursive: true });
  for (
    const path of ["vendor/lib/.git/hooks/pre-commit", "vendor/lib/.GIT/config", "x/.git/config"]
  ) {
    const result = await a.call("write_file", { path, content: "pwn" });
    assertRefused(result, "permission_denied", [], path);
  }
  const patch = await a.call("apply_patch", {
    patch:
      "*** Begin Patch\n*** Add File: vendor/lib/.git/config\n+[core]\n+\tfsmonitor = x\n*** End Patch",
  });
  assertRefused(patch, "permission_denied", [], "nested patch");
  assertEquals(await listing(`${a.ws}/vendor/lib/.git/hooks`), []);
  assertEquals(await listing(`${a.ws}/vendor/lib/.git`), ["hooks"]);
});

Deno.test("protected names ignore trailing dots and spaces, and rewrites drop setuid and setgid bits", async () => {
  await using a = await arena();
  for (const path of [".git./hooks/pre-commit", ".git /config", ".git.. /x", "vendor/.GIT./x"]) {
    assertRefused(
      await a.call("write_file", { path, content: "pwn" }),
      "permission_denied",
      [],
      path,
    );
  }
  await Deno.writeTextFile(`${a.ws}/tool.sh`, "#!/bin/sh\n");
  await Deno.chmod(`${a.ws}/tool.sh`, 0o6755);
  await Deno.writeTextFile(`${a.ws}/moved.sh`, "#!/bin/sh\n");
  await Deno.chmod(`${a.ws}/moved.sh`, 0o4755);
  const write = await a.call("write_file", { path: "tool.sh", content: "#!/bin/sh\nid\n" });
  assertEquals(write.isError, false, write.text);
  const move = await a.call("apply_patch", {
    patch:
      "*** Begin Patch\n*** Update File: moved.sh\n*** Move to: bin/moved.sh\n@@\n #!/bin/sh\n+id\n*** End Patch",
  });
  assertEquals(move.isError, false, move.text);
  assertEquals((await Deno.stat(`${a.ws}/tool.sh`)).mode! & 0o7000, 0);
  assertEquals((await Deno.stat(`${a.ws}/bin/moved.sh`)).mode! & 0o7000, 0);
  await assertGitUntouched(a);
});

Deno.test("apply_patch cannot reach .git: add, update, delete, Move to, unified renames", async () => {
  await using a = await arena();
  await Deno.writeTextFile(`${a.ws}/a.txt`, "one\ntwo\n");
  const patches = [
    "*** Begin Patch\n*** Add File: .git/hooks/pre-commit\n+#!/bin/sh\n*** End Patch",
    "*** Begin Patch\n*** Add File: .GIT/hooks/pre-commit\n+#!/bin/sh\n*** End Patch",
    "*** Begin Patch\n*** Update File: a.txt\n*** Move to: .git/hooks/pre-commit\n@@\n one\n-two\n+TWO\n*** End Patch",
    "*** Begin Patch\n*** Update File: a.txt\n*** Move to: .GiT/../.git/hooks/post-checkout\n@@\n one\n-two\n+TWO\n*** End Patch",
    "*** Begin Patch\n*** Delete File: .git/config\n*** End Patch",
    "*** Begin Patch\n*** Update File: .git/config\n*** Move to: stolen.txt\n@@\n-[core]\n+[core]\n*** End Patch",
    "*** Begin Patch\n*** Update File: .git/config\n@@\n [core]\n+\tfsmonitor = touch pwned\n*** End Patch",
    "--- /dev/null\n+++ b/.git/hooks/post-checkout\n@@ -0,0 +1 @@\n+pwn\n",
    "--- a/a.txt\n+++ b/.git/hooks/pre-commit\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n",
    "diff --git a/a.txt b/.git/hooks/pre-commit\nrename from a.txt\nrename to .git/hooks/pre-commit\n",
    "--- a/.git/config\n+++ /dev/null\n@@ -1 +0,0 @@\n-[core]\n",
    "--- a/a.txt\n+++ b/.git/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n",
    "diff --git a/.git/config b/stolen.txt\nrename from .git/config\nrename to stolen.txt\n",
    "diff --git a/.git/config b/stolen.txt\ncopy from .git/config\ncopy to stolen.txt\n--- a/.git/config\n+++ b/stolen.txt\n@@ -1 +1,2 @@\n [core]\n+x\n",
    "*** Begin Patch\n*** Add File: .git \n+x\n*** End Patch\n",
  ];
  for (const patch of patches) {
    const result = await a.call("apply_patch", { patch });
    assertEquals(result.isError, true, `${patch}\n→ ${result.text}`);
  }
  await assertGitUntouched(a);
  assertEquals(await Deno.readTextFile(`${a.ws}/a.txt`), "one\ntwo\n");
});

// ---------------------------------------------------------------------------------------------
// apply_patch escapes

Deno.test("apply_patch refuses adds, moves, deletes and unified diffs that leave the workspace, all or nothing", async () => {
  await using a = await arena();
  await Deno.writeTextFile(`${a.ws}/a.txt`, "one\ntwo\n");
  await Deno.symlink(`${a.out}/secret.txt`, `${a.ws}/secret_link`);
  await Deno.symlink(a.out, `${a.ws}/out_dir`);
  const hunk = "@@\n one\n-two\n+TWO";
  const patches = [
    "*** Begin Patch\n*** Add File: ../outside/x.txt\n+pwn\n*** End Patch",
    `*** Begin Patch\n*** Add File: ${a.out}/x.txt\n+pwn\n*** End Patch`,
    `*** Begin Patch\n*** Update File: a.txt\n*** Move to: ../outside/a.txt\n${hunk}\n*** End Patch`,
    `*** Begin Patch\n*** Update File: a.txt\n*** Move to: ${a.sib}/a.txt\n${hunk}\n*** End Patch`,
    `*** Begin Patch\n*** Update File: a.txt\n*** Move to: out_dir/a.txt\n${hunk}\n*** End Patch`,
    "*** Begin Patch\n*** Delete File: ../outside/secret.txt\n*** End Patch",
    `*** Begin Patch\n*** Delete File: ${a.out}/secret.txt\n*** End Patch`,
    "*** Begin Patch\n*** Delete File: secret_link\n*** End Patch",
    "*** Begin Patch\n*** Delete File: out_dir/secret.txt\n*** End Patch",
    `*** Begin Patch\n*** Update File: secret_link\n@@\n-${SECRET}\n+pwn\n*** End Patch`,
    `*** Begin Patch\n*** Update File: secret_link\n*** Move to: stolen.txt\n@@\n+x\n*** End of File\n*** End Patch`,
    `*** Begin Patch\n*** Update File: ${a.ro}/ro.txt\n@@\n-read only\n+pwn\n*** End Patch`,
    // The first file is fine, the second escapes: nothing may change.
    "*** Begin Patch\n*** Add File: new1.txt\n+n\n*** Add File: ../outside/y.txt\n+n\n*** End Patch",
    `*** Begin Patch\n*** Update File: a.txt\n${hunk}\n*** Delete File: out_dir/secret.txt\n*** End Patch`,
    `--- a/../outside/secret.txt\n+++ b/../outside/secret.txt\n@@ -1 +1 @@\n-${SECRET}\n+pwn\n`,
    `--- ${a.out}/secret.txt\n+++ ${a.out}/secret.txt\n@@ -1 +1 @@\n-${SECRET}\n+pwn\n`,
    "diff --git a/a.txt b/../outside/z.txt\nrename from a.txt\nrename to ../outside/z.txt\n--- a/a.txt\n+++ b/../outside/z.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n",
    `--- a/../outside/secret.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-${SECRET}\n`,
    `--- a/../outside/secret.txt\n+++ b/stolen.txt\n@@ -1 +1 @@\n-${SECRET}\n+${SECRET}\n`,
  ];
  for (const patch of patches) {
    const result = await a.call("apply_patch", { patch });
    assertEquals(result.isError, true, `${patch}\n→ ${result.text}`);
    for (const hidden of [a.out, SECRET]) {
      if (patch.includes(hidden)) continue; // the model's own text may come back
      assert(!result.text.includes(hidden), `${patch}\n→ echoes ${hidden}: ${result.text}`);
    }
  }
  await assertOutsideUntouched(a);
  assertEquals(await Deno.readTextFile(`${a.ws}/a.txt`), "one\ntwo\n");
  assertEquals(await listing(a.ws), [".git", "a.txt", "hello.txt", "out_dir", "secret_link"]);
});

Deno.test("error texts name the path as given, never file content or where a symlink leads", async () => {
  await using a = await arena();
  await Deno.writeTextFile(`${a.ws}/inside.txt`, `first\n${INSIDE}\nlast\n`);
  await Deno.writeTextFile(`${a.ws}/binary.bin`, `${INSIDE}\0\n`);
  await Deno.symlink(`${a.out}/secret.txt`, `${a.ws}/link`);
  const results = [
    await a.call("apply_patch", {
      patch: "*** Begin Patch\n*** Update File: inside.txt\n@@\n first\n-nope\n+x\n*** End Patch",
    }),
    await a.call("apply_patch", {
      patch: "--- a/inside.txt\n+++ b/inside.txt\n@@ -1,3 +1,3 @@\n first\n-nope\n+x\n last\n",
    }),
    await a.call("read_file", { path: "binary.bin" }),
    await a.call("read_file", { path: "inside.txt", startLine: 99 }),
    await a.call("write_file", { path: "inside.txt", content: "x", mode: "create" }),
    await a.call("read_file", { path: "link" }),
    await a.call("write_file", { path: "link", content: "x" }),
  ];
  for (const result of results) {
    assertEquals(result.isError, true, result.text);
    for (const hidden of [INSIDE, SECRET, a.out]) {
      assert(!result.text.includes(hidden), `echoes ${hidden}: ${result.text}`);
    }
  }
});

// ---------------------------------------------------------------------------------------------
// FIFOs and devices

Deno.test("read_file and write_file refuse FIFOs and devices without blocking", async () => {
  await using a = await arena({ readOnlyRoots: [] });
  const mkfifo = await new Deno.Command("mkfifo", { args: [`${a.ws}/fifo`] }).output();
  assert(mkfifo.success);
  const read = await a.call("read_file", { path: "fifo" });
  assertRefused(read, "tool_error", [], "read fifo");
  assertMatch(read.text, /FIFO/);
  assertRefused(await a.call("write_file", { path: "fifo", content: "x" }), "tool_error", [], "w");
  assertRefused(
    await a.call("apply_patch", {
      patch: "*** Begin Patch\n*** Update File: fifo\n@@\n+x\n*** End of File\n*** End Patch",
    }),
    "tool_error",
    [],
    "patch fifo",
  );
  assertRefused(await a.call("read_file", { path: "." }), "tool_error", [], "directory");
});

// ---------------------------------------------------------------------------------------------
// bash under bubblewrap

const BWRAP = { bash: { sandbox: "bwrap" as const } };

async function run(a: Arena, command: string, extra: Record<string, unknown> = {}) {
  const result = await a.call("bash", { command, timeoutMs: 10_000, ...extra });
  assertEquals(result.isError, false, result.text);
  return JSON.parse(result.text) as {
    exitCode: number;
    stdout: string;
    stderr: string;
    timedOut: boolean;
  };
}

Deno.test("bash under bwrap sees no outside file, no /root, no /home, no host /tmp entry", {
  ignore: skipWithoutBwrap(),
}, async () => {
  await using a = await arena(BWRAP);
  const hostTmp = await Deno.makeTempFile({ prefix: "toolroute_adv_host_" });
  try {
    const result = await run(
      a,
      `cat ${a.out}/secret.txt ${a.sib}/secret.txt /proc/self/root${a.out}/secret.txt 2>&1; ` +
        `ls -a ${a.base}; ls /root /home /var /run ${hostTmp} 2>&1; ls /tmp`,
    );
    assert(!result.stdout.includes(SECRET), result.stdout);
    assertMatch(result.stdout, /outside\/secret\.txt: No such file or directory/);
    assertMatch(result.stdout, /\.\n\.\.\nro\nws\n/);
    assertMatch(result.stdout, /cannot access '\/root'/);
    assertMatch(result.stdout, /cannot access '\/home'/);
    assert(result.stdout.includes(`cannot access '${hostTmp}'`), result.stdout);
  } finally {
    await Deno.remove(hostTmp);
  }
});

Deno.test("bash under bwrap gets no host secret, no DENO_* and no token from the environment", {
  ignore: skipWithoutBwrap(),
}, async () => {
  await using a = await arena(BWRAP);
  const names = ["ADV_API_TOKEN", "DENO_AUTH_TOKENS", "GITHUB_TOKEN"];
  const before = names.map((n) => Deno.env.get(n));
  for (const n of names) Deno.env.set(n, `${SECRET}-${n}`);
  try {
    const result = await run(
      a,
      "env; for p in /proc/[0-9]*; do tr '\\0' '\\n' < $p/environ; done 2>/dev/null",
    );
    assert(!result.stdout.includes(SECRET), result.stdout);
    for (const n of names) assert(!result.stdout.includes(n), `${n} visible: ${result.stdout}`);
    // The supervisor's own two settings show in its /proc environ (readable inside); no value
    // of the host's.
    const own = ["DENO_NO_UPDATE_CHECK=1", "DENO_DIR=/proc/toolroute-no-cache"];
    const vars = result.stdout.split("\n").filter((l) => l && !own.includes(l))
      .map((l) => l.split("=")[0]);
    for (const v of vars) {
      assert(["PATH", "HOME", "LANG", "TERM", "PWD", "SHLVL", "_", "OLDPWD"].includes(v), v);
    }
  } finally {
    names.forEach((n, i) =>
      before[i] === undefined ? Deno.env.delete(n) : Deno.env.set(n, before[i]!)
    );
  }
});

Deno.test("bash under bwrap cannot reach a host loopback listener nor signal host processes", {
  ignore: skipWithoutBwrap(),
}, async () => {
  await using a = await arena(BWRAP);
  using listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  const result = await run(
    a,
    `(echo hi > /dev/tcp/127.0.0.1/${port}) 2>&1; echo net=$?; ` +
      `kill -0 ${Deno.pid} 2>&1; echo kill=$?; ls /proc | grep -c '^[0-9]'`,
  );
  assertMatch(result.stdout, /net=1/);
  assertMatch(result.stdout, /kill=1/);
  // Only the sandbox's own few processes are visible.
  assert(Number(result.stdout.trim().split("\n").at(-1)) < 10, result.stdout);
});

Deno.test(
  "bash under bwrap cannot write read-only roots, system dirs or existing .git with plain writes",
  { ignore: skipWithoutBwrap() },
  async () => {
    await using a = await arena(BWRAP);
    const result = await run(
      a,
      `echo x > ${a.ro}/ro.txt; echo x > ${a.ro}/new.txt; touch /usr/adv_probe /etc/adv_probe; ` +
        `echo x > .git/hooks/pre-commit; mv .git .git_moved; rm -rf .git; ` +
        `echo x > ${a.out}/x.txt; true`,
    );
    assertMatch(result.stderr + result.stdout, /Read-only file system/);
    await assertOutsideUntouched(a);
    await assertGitUntouched(a);
    assertEquals(await Deno.readTextFile(`${a.ro}/ro.txt`), "read only\n");
    await Deno.stat("/usr/adv_probe").then(
      () => assert(false, "/usr/adv_probe was created on the host"),
      (e) => assert(e instanceof Deno.errors.NotFound),
    );
  },
);

Deno.test("a read-only root nested in the workspace stays read-only for every tool", {
  ignore: skipWithoutBwrap(),
}, async () => {
  await using a = await arena({ ...BWRAP });
  await a.router.close();
  await Deno.mkdir(`${a.ws}/vendor`);
  await Deno.writeTextFile(`${a.ws}/vendor/lib.txt`, "lib\n");
  const context = { workspace: a.ws, readOnlyRoots: [`${a.ws}/vendor`], ...BWRAP };
  await using router = new ToolRouter({ builtins: builtinTools(context) });
  const tools = await router.expose({ builtins: ["write_file", "apply_patch", "bash"] });
  const refusals = [
    await tools.call("write_file", { path: "vendor/lib.txt", content: "PWN" }),
    await tools.call("write_file", { path: "vendor/new.txt", content: "PWN" }),
    await tools.call("apply_patch", {
      patch: "*** Begin Patch\n*** Add File: vendor/new.txt\n+PWN\n*** End Patch",
    }),
    await tools.call("apply_patch", {
      patch: "*** Begin Patch\n*** Delete File: vendor/lib.txt\n*** End Patch",
    }),
  ];
  for (const result of refusals) assertRefused(result, "permission_denied", [], result.text);
  const bash = await tools.call("bash", {
    command: "echo PWN > vendor/lib.txt; touch vendor/new.txt; rm -rf vendor; mv vendor v2; true",
  });
  assertMatch(JSON.parse(bash.text).stderr, /Read-only file system|Device or resource busy/);
  assertEquals(await listing(`${a.ws}/vendor`), ["lib.txt"]);
  assertEquals(await Deno.readTextFile(`${a.ws}/vendor/lib.txt`), "lib\n");
});

Deno.test("bash cwd cannot leave the workspace: .., absolute, sibling, read-only root, symlink", async () => {
  await using a = await arena(BWRAP);
  await Deno.symlink(a.out, `${a.ws}/out_link`);
  await Deno.symlink(a.ro, `${a.ws}/ro_link`);
  for (
    const cwd of ["..", a.out, a.sib, `${a.ws}_evil`, a.ro, "out_link", "ro_link", "/", "/tmp"]
  ) {
    const result = await a.call("bash", { command: "cat secret.txt; pwd", cwd });
    assertRefused(result, "permission_denied", cwd.startsWith(a.out) ? [] : [a.out], `cwd ${cwd}`);
  }
  assertRefused(await a.call("bash", { command: "pwd", cwd: "hello.txt" }), "tool_error", [], "f");
});

Deno.test(
  "bash under bwrap: exec leaves no background child, close() kills setsid and nohup children",
  { ignore: skipWithoutBwrap() },
  async () => {
    const tag = `31.${crypto.getRandomValues(new Uint32Array(1))[0]}`;
    {
      await using a = await arena(BWRAP);
      const exec = await run(a, `sleep ${tag} & setsid sleep ${tag} & echo started`);
      assertEquals(exec.stdout, "started\n");
      const timed = await run(a, `setsid sleep ${tag} & sleep ${tag}`, { timeoutMs: 300 });
      assertEquals(timed.timedOut, true);
      const started = await a.call("bash", {
        action: "start",
        command: `setsid sleep ${tag} & nohup sleep ${tag} >/dev/null & sleep ${tag}`,
      });
      assertEquals(started.isError, false, started.text);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assertEquals(await leftovers(`sleep ${tag}`), []);
  },
);

Deno.test("bash output floods stay bounded: exec of yes and a background yes", {
  ignore: skipWithoutBwrap(),
}, async () => {
  await using a = await arena({ ...BWRAP, outputMaxChars: 1000, processLogChars: 500 });
  const exec = await run(a, "yes", { timeoutMs: 400 });
  assertEquals(exec.timedOut, true);
  assert(exec.stdout.length < 1100, `${exec.stdout.length}`);
  assertMatch(exec.stdout, /\[\.\.\. \d+ characters truncated \.\.\.\]/);
  const started = JSON.parse((await a.call("bash", { action: "start", command: "yes" })).text);
  await new Promise((resolve) => setTimeout(resolve, 300));
  const logs = JSON.parse(
    (await a.call("bash", { action: "logs", processId: started.processId })).text,
  );
  assert(logs.text.length <= 500, `${logs.text.length}`);
  assert(logs.offset > 0);
  const stopped = await a.call("bash", { action: "stop", processId: started.processId });
  assertEquals(JSON.parse(stopped.text).running, false);
});

// ---------------------------------------------------------------------------------------------
// sandbox "none": described honestly, environment still scrubbed

Deno.test("bash sandbox none says plainly it is not confined, and still scrubs the command's env", async () => {
  await using a = await arena({ bash: { sandbox: "none" } });
  const bash = a.tools.tools.find((t) => t.function.name === "bash")!;
  assertMatch(bash.function.description ?? "", /NOT sandboxed/);
  assertMatch(bash.function.description ?? "", /anything the operating-system user can/);
  Deno.env.set("ADV_HOST_SECRET", SECRET);
  try {
    const result = await run(a, "env");
    assert(!result.stdout.includes(SECRET), result.stdout);
    assert(!result.stdout.includes("DENO_"), result.stdout);
  } finally {
    Deno.env.delete("ADV_HOST_SECRET");
  }
  await using b = await arena(BWRAP);
  const sandboxed = b.tools.tools.find((t) => t.function.name === "bash")!;
  assert(!/NOT sandboxed/.test(sandboxed.function.description ?? ""));
});

// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// Under the exact flags of denoFlags(): same refusals, same words, no leak

const CHILD = `
import { ToolRouter } from "@toolroute/toolroute";
import { builtinTools, checkPermissions } from "@toolroute/toolroute/deno";
const context = JSON.parse(Deno.args[0]);
const calls = JSON.parse(Deno.args[1]);
const report = { permissions: checkPermissions(context), direct: "", results: [] };
report.direct = await Deno.readTextFile(Deno.args[2]).then(() => "read", (e) => e.name);
await using router = new ToolRouter({ builtins: builtinTools(context, { strict: true }) });
const tools = await router.expose({ builtins: ["read_file", "write_file", "apply_patch"] });
for (const [name, args] of calls) report.results.push(await tools.call(name, args));
console.log(JSON.stringify(report));
`;

Deno.test("under exactly denoFlags(context), symlink escapes get the same refusals and leak nothing", async () => {
  await using a = await arena();
  await Deno.symlink(`${a.out}/secret.txt`, `${a.ws}/file_link`);
  await Deno.symlink(a.out, `${a.ws}/dir_link`);
  await Deno.symlink(`${a.out}/new.txt`, `${a.ws}/dangling`);
  await Deno.symlink(a.out, `${a.ro}/escape`);
  await Deno.symlink(a.ro, `${a.ws}/ro_link`);
  const context = { workspace: a.ws, readOnlyRoots: [a.ro] };
  const calls = [
    ["read_file", { path: "file_link" }],
    ["read_file", { path: "dir_link/secret.txt" }],
    ["read_file", { path: "dangling" }],
    ["read_file", { path: "ro_link/escape/secret.txt" }],
    ["read_file", { path: "../outside/secret.txt" }],
    ["write_file", { path: "dangling", content: "PWN" }],
    ["write_file", { path: "dir_link/new.txt", content: "PWN" }],
    ["write_file", { path: "ro_link/new.txt", content: "PWN" }],
    ["apply_patch", { patch: "*** Begin Patch\n*** Delete File: file_link\n*** End Patch" }],
  ];
  const script = `${a.base}/child.ts`;
  await Deno.writeTextFile(script, CHILD);
  const { denoFlags } = await import("@toolroute/toolroute/deno");
  const config = new URL("../../../deno.json", import.meta.url).pathname;
  const child = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      `--config=${config}`,
      ...denoFlags(context),
      script,
      JSON.stringify(context),
      JSON.stringify(calls),
      `${a.out}/secret.txt`,
    ],
    stdin: "null",
  }).output();
  const stdout = new TextDecoder().decode(child.stdout);
  assert(child.success, new TextDecoder().decode(child.stderr));
  const report = JSON.parse(stdout);
  assertEquals(report.permissions, { missing: [], excess: [] });
  assertEquals(report.direct, "NotCapable");
  assertEquals(report.results.length, calls.length);
  for (const [i, result] of report.results.entries()) {
    const label = JSON.stringify(calls[i]);
    assertRefused(result, "permission_denied", [a.out], label);
    assert(!result.text.includes("--allow-"), `${label}: ${result.text}`);
  }
  await Deno.remove(`${a.ro}/escape`);
  await Deno.remove(script);
  await assertOutsideUntouched(a);
});

import { assert, assertEquals, assertRejects } from "@std/assert";
import { ToolError, ToolRouter } from "@toolroute/toolroute";
import { builtinTools, resolveBuiltinContext } from "@toolroute/toolroute/deno";
import { commit, type Target } from "../../../../src/deno/builtins/files/staged_commit.ts";
import { SandboxSessions } from "../../../../src/deno/builtins/sandbox/sandbox_sessions.ts";
import { sessionFileAccess } from "../../../../src/deno/builtins/sandbox/session_file_access.ts";
import type { ResolvedContext } from "../../../../src/deno/builtins/builtin_context.ts";
import { resolveWritePath } from "../../../../src/deno/builtins/paths/workspace_paths.ts";
import { makeFixture, SECRET } from "../_fixture.ts";
import { skipWithoutBwrap } from "../../../_helpers/bwrap.ts";

const BWRAP = { bash: { sandbox: "bwrap" as const } };
const bytes = (text: string) => new TextEncoder().encode(text);

/** Commits through the context's sandbox session, as write_file and apply_patch do. */
async function commitInSandbox(ctx: ResolvedContext, targets: Target[]): Promise<void> {
  const sessions = new SandboxSessions();
  try {
    await commit(sessionFileAccess(ctx, sessions), targets);
  } finally {
    await sessions.close();
  }
}

async function listing(dir: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(dir)) found.push(entry.name);
  return found.sort();
}

Deno.test(
  "write_file with bash sandboxed writes, appends and keeps permission bits through bwrap",
  { ignore: skipWithoutBwrap() },
  async () => {
    await using f = await makeFixture();
    await using router = new ToolRouter({ builtins: builtinTools({ ...f.context, ...BWRAP }) });
    const tools = await router.expose({ builtins: ["write_file"] });
    const content = "naïve ✓\u0000\r\nend";
    const created = await tools.call("write_file", { path: "a/b/c.txt", content });
    assertEquals(JSON.parse(created.text), {
      path: "a/b/c.txt",
      mode: "overwrite",
      created: true,
      bytesWritten: bytes(content).length,
    });
    assertEquals(await Deno.readTextFile(`${f.workspace}/a/b/c.txt`), content);
    await Deno.chmod(`${f.workspace}/hello.txt`, 0o750);
    await tools.call("write_file", { path: "hello.txt", content: "more\n", mode: "append" });
    assertEquals(await Deno.readTextFile(`${f.workspace}/hello.txt`), "hello\nworld\nmore\n");
    assertEquals((await Deno.stat(`${f.workspace}/hello.txt`)).mode! & 0o7777, 0o750);
    await Deno.chmod(`${f.workspace}/hello.txt`, 0o6640);
    await tools.call("write_file", { path: "hello.txt", content: "x" });
    assertEquals((await Deno.stat(`${f.workspace}/hello.txt`)).mode! & 0o7777, 0o640);
    const refused = await tools.call("write_file", { path: "a", content: "x" });
    assertEquals(refused.code, "tool_error");
    assertEquals(await listing(f.workspace), ["a", "hello.txt"]);
    assertEquals(await listing(`${f.workspace}/a/b`), ["c.txt"]);
  },
);

Deno.test("apply_patch with bash sandboxed changes nothing when its second file fails", {
  ignore: skipWithoutBwrap(),
}, async () => {
  await using f = await makeFixture();
  await using router = new ToolRouter({ builtins: builtinTools({ ...f.context, ...BWRAP }) });
  const tools = await router.expose({ builtins: ["apply_patch"] });
  await Deno.writeTextFile(`${f.workspace}/blocker`, "a file, not a directory\n");
  const patch = "*** Begin Patch\n*** Update File: hello.txt\n@@\n-hello\n+HELLO\n" +
    "*** Add File: new/dir/x.txt\n+x\n*** Add File: blocker/y.txt\n+y\n*** End Patch";
  const failed = await tools.call("apply_patch", { patch });
  assertEquals(failed.isError, true);
  assert(failed.text.includes('"blocker/y.txt"'), failed.text);
  assertEquals(await Deno.readTextFile(`${f.workspace}/hello.txt`), "hello\nworld\n");
  assertEquals(await listing(f.workspace), ["blocker", "hello.txt"]);
  const ok = await tools.call("apply_patch", {
    patch: "*** Begin Patch\n*** Update File: hello.txt\n*** Move to: m/moved.txt\n@@\n-hello\n" +
      "+HELLO\n*** Delete File: blocker\n*** End Patch",
  });
  assertEquals(ok.isError, false, ok.text);
  assertEquals(await listing(f.workspace), ["m"]);
  assertEquals(await Deno.readTextFile(`${f.workspace}/m/moved.txt`), "HELLO\nworld\n");
});

Deno.test(
  "commitInSandbox() cannot follow a symlink swapped in after the check to an outside directory",
  { ignore: skipWithoutBwrap() },
  async () => {
    await using f = await makeFixture();
    const ctx = resolveBuiltinContext({ ...f.context, ...BWRAP });
    await Deno.mkdir(`${f.workspace}/d`);
    await Deno.writeTextFile(`${f.workspace}/d/secret.txt`, "inside\n");
    const write = resolveWritePath(ctx, "d/new.txt");
    const append = resolveWritePath(ctx, "d/secret.txt");
    // The swap the race would make, done deterministically between the check and the use.
    await Deno.rename(`${f.workspace}/d`, `${f.workspace}/d.away`);
    await Deno.symlink(f.outside, `${f.workspace}/d`);
    const files: Target[][] = [
      [{ path: write, content: bytes("PWN"), onDisk: null }],
      [{ path: append, content: bytes(""), onDisk: "" }],
      [{ path: append, content: null, onDisk: "" }],
    ];
    for (const change of files) {
      await assertRejects(() => commitInSandbox(ctx, change), ToolError);
    }
    assertEquals(await listing(f.outside), ["secret.txt"]);
    assertEquals(await Deno.readTextFile(`${f.outside}/secret.txt`), `${SECRET}\n`);
    assertEquals(await Deno.readTextFile(`${f.workspace}/d.away/secret.txt`), "inside\n");
  },
);

Deno.test("commitInSandbox() refuses to replace a file that is no longer the one that was read", {
  ignore: skipWithoutBwrap(),
}, async () => {
  await using f = await makeFixture();
  const ctx = resolveBuiltinContext({ ...f.context, ...BWRAP });
  const path = resolveWritePath(ctx, "hello.txt");
  const info = await Deno.lstat(`${f.workspace}/hello.txt`);
  // Replaced by another file (created first, so that it cannot reuse the inode).
  await Deno.writeTextFile(`${f.workspace}/other.txt`, "another file\n");
  await Deno.rename(`${f.workspace}/other.txt`, `${f.workspace}/hello.txt`);
  await assertRejects(
    () =>
      commitInSandbox(ctx, [{
        path,
        content: bytes("patched\n"),
        onDisk: "",
        identity: { dev: info.dev, ino: info.ino },
      }]),
    ToolError,
    "does not exist",
  );
  assertEquals(await Deno.readTextFile(`${f.workspace}/hello.txt`), "another file\n");
  assertEquals(await listing(f.workspace), ["hello.txt"]);
});

Deno.test("write_file with bash sandboxed fails clearly when bubblewrap is missing, writing nothing", async () => {
  await using f = await makeFixture();
  await using router = new ToolRouter({ builtins: builtinTools({ ...f.context, ...BWRAP }) });
  const tools = await router.expose({ builtins: ["write_file"] });
  const path = Deno.env.get("PATH");
  Deno.env.set("PATH", f.outside);
  try {
    const result = await tools.call("write_file", { path: "x.txt", content: "x" });
    assertEquals(result.code, "tool_error");
    assert(result.text.includes("bubblewrap (bwrap) is not installed"), result.text);
  } finally {
    if (path === undefined) Deno.env.delete("PATH");
    else Deno.env.set("PATH", path);
  }
  assertEquals(await listing(f.workspace), ["hello.txt"]);
});

Deno.test(
  "commitInSandbox() puts one whole file in one request and leaves nothing when its rename fails",
  { ignore: skipWithoutBwrap() },
  async () => {
    await using f = await makeFixture();
    const ctx = resolveBuiltinContext({ ...f.context, ...BWRAP });
    const sessions = new SandboxSessions();
    try {
      const files = sessionFileAccess(ctx, sessions);
      const ops: string[] = [];
      const lease = await sessions.acquire(ctx, { reading: true });
      const session = lease.session;
      lease.release();
      const request = session.request.bind(session);
      session.request = (
        header,
        body,
        options,
      ) => (ops.push(String(header.op)), request(header, body, options));
      await commit(files, [{
        path: resolveWritePath(ctx, "hello.txt"),
        onDisk: "",
        content: "put\n",
      }]);
      assertEquals(ops, ["put"]);
      assertEquals(await Deno.readTextFile(`${f.workspace}/hello.txt`), "put\n");
      // A directory where the file goes: the rename fails, the temporary file is removed.
      await Deno.mkdir(`${f.workspace}/dir`);
      const dir = resolveWritePath(ctx, "dir");
      await assertRejects(() => commit(files, [{ path: dir, onDisk: null, content: "x" }]));
      assertEquals(await listing(f.workspace), ["dir", "hello.txt"]);
      assertEquals(await listing(`${f.workspace}/dir`), []);
    } finally {
      await sessions.close();
    }
  },
);

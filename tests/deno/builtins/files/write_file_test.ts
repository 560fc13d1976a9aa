import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { fileTools, makeFixture, SECRET } from "../_fixture.ts";
import { createWriteFileTool } from "../../../../src/deno/builtins/files/write_file.ts";
import { createEditTool } from "../../../../src/deno/builtins/patch/edit.ts";
import { resolveBuiltinContext } from "../../../../src/deno/builtins/builtin_context.ts";
import { hostFileAccess } from "../../../../src/deno/builtins/files/host_file_access.ts";
import { SandboxSessions } from "../../../../src/deno/builtins/sandbox/sandbox_sessions.ts";
import { sessionFileAccess } from "../../../../src/deno/builtins/sandbox/session_file_access.ts";
import { skipWithoutBwrap } from "../../../_helpers/bwrap.ts";

async function names(dir: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(dir)) found.push(entry.name);
  return found.sort();
}

Deno.test("write_file creates, overwrites and appends, reporting what it did", async () => {
  await using f = await makeFixture();
  await using setup = await fileTools(f.context);
  const created = JSON.parse(
    await setup.tools.invoke("write_file", { path: "a/b/new.txt", content: "héllo\n" }),
  );
  assertEquals(created, { path: "a/b/new.txt", mode: "overwrite", created: true, bytesWritten: 7 });
  const appended = JSON.parse(
    await setup.tools.invoke("write_file", {
      path: "a/b/new.txt",
      content: "more\n",
      mode: "append",
    }),
  );
  assertEquals([appended.created, appended.bytesWritten], [false, 5]);
  assertEquals(await Deno.readTextFile(`${f.workspace}/a/b/new.txt`), "héllo\nmore\n");
  await setup.tools.invoke("write_file", { path: "a/b/new.txt", content: "replaced" });
  assertEquals(await Deno.readTextFile(`${f.workspace}/a/b/new.txt`), "replaced");
  assertEquals(await names(`${f.workspace}/a/b`), ["new.txt"], "no temporary file is left behind");
});

Deno.test("write_file in create mode refuses an existing file", async () => {
  await using f = await makeFixture();
  await using setup = await fileTools(f.context);
  const result = await setup.tools.call("write_file", {
    path: "hello.txt",
    content: "x",
    mode: "create",
  });
  assertEquals(result.code, "tool_error");
  assertStringIncludes(result.text, "already exists");
  assertEquals(await Deno.readTextFile(`${f.workspace}/hello.txt`), "hello\nworld\n");
});

Deno.test("write_file keeps the permission bits of the file it replaces, but not setuid", async () => {
  await using f = await makeFixture();
  await Deno.writeTextFile(`${f.workspace}/run.sh`, "#!/bin/sh\n");
  await Deno.chmod(`${f.workspace}/run.sh`, 0o4750);
  await using setup = await fileTools(f.context);
  await setup.tools.invoke("write_file", { path: "run.sh", content: "#!/bin/sh\necho hi\n" });
  assertEquals((await Deno.stat(`${f.workspace}/run.sh`)).mode! & 0o7777, 0o750);
});

Deno.test("write_file refuses escapes, read-only roots and .git, creating no directory", async () => {
  await using f = await makeFixture();
  await Deno.mkdir(`${f.workspace}/.git/hooks`, { recursive: true });
  await Deno.symlink(f.outside, `${f.workspace}/out`);
  await Deno.symlink(`${f.outside}/planted.sh`, `${f.workspace}/dangling`);
  await using setup = await fileTools(f.context);
  const cases: [string, string][] = [
    ["../escape.txt", "outside allowed roots"],
    [`${f.outside}/new/x.txt`, "outside allowed roots"],
    [`${f.sibling}/x.txt`, "outside allowed roots"],
    ["out/new/x.txt", "outside allowed roots"],
    ["dangling", "outside allowed roots"],
    [`${f.readOnly}/ro.txt`, "read-only"],
    [".git/hooks/pre-commit", "read-only"],
  ];
  for (const [path, words] of cases) {
    const result = await setup.tools.call("write_file", { path, content: SECRET });
    assertEquals(result.code, "permission_denied", path);
    assertStringIncludes(result.text, words);
  }
  assertEquals(await names(f.outside), ["secret.txt"]);
  assertEquals(await names(f.sibling), ["secret.txt"]);
  assertEquals(await names(`${f.workspace}/.git/hooks`), []);
  assertEquals(await Deno.readTextFile(`${f.readOnly}/ro.txt`), "read only\n");
});

Deno.test("write_file replaces a hard link instead of writing through it to an outside file", async () => {
  await using f = await makeFixture();
  await Deno.link(`${f.outside}/secret.txt`, `${f.workspace}/linked.txt`);
  await using setup = await fileTools(f.context);
  for (const mode of ["overwrite", "append"]) {
    const result = await setup.tools.call("write_file", {
      path: "linked.txt",
      content: "mine\n",
      mode,
    });
    assert(!result.isError, result.text);
  }
  assertEquals(await Deno.readTextFile(`${f.outside}/secret.txt`), `${SECRET}\n`);
  assertEquals((await Deno.stat(`${f.workspace}/linked.txt`)).nlink, 1);
});

Deno.test("write_file refuses to write over a directory", async () => {
  await using f = await makeFixture();
  await Deno.mkdir(`${f.workspace}/dir`);
  await using setup = await fileTools(f.context);
  const result = await setup.tools.call("write_file", { path: "dir", content: "x" });
  assertEquals(result.code, "tool_error");
  assertStringIncludes(result.text, "not a regular file");
});

Deno.test("write_file's and edit's descriptions name at most 8 protected paths, then how many more", () => {
  // serve can protect thousands of paths: edit's description used to list every one.
  const protectedPaths = Array.from({ length: 20 }, (_, i) => `./f${i}.ts`);
  const ctx = resolveBuiltinContext({ workspace: "/srv/ws", protectedPaths });
  for (const create of [createWriteFileTool, createEditTool]) {
    const tool = create(ctx, hostFileAccess(ctx));
    assertStringIncludes(tool.description, '"./f7.ts" and 12 more protected paths cannot be');
    assertEquals(tool.description.includes("f8.ts"), false, tool.name);
  }
});

Deno.test({
  name:
    "write_file in a sandbox session creates, overwrites or refuses in one request to the supervisor",
  ignore: skipWithoutBwrap(),
  async fn() {
    await using f = await makeFixture();
    const ctx = resolveBuiltinContext({ ...f.context, bash: { sandbox: "bwrap" } });
    const sessions = new SandboxSessions();
    try {
      const tool = createWriteFileTool(ctx, sessionFileAccess(ctx, sessions));
      // Every request the session's supervisor gets, by operation.
      const lease = await sessions.acquire(ctx);
      const session = lease.session;
      lease.release();
      let ops: string[] = [];
      const request = session.request.bind(session);
      session.request = (header, body, options) => (
        ops.push(String(header.op)), request(header, body, options)
      );
      const call = async (args: Record<string, unknown>) => {
        ops = [];
        let result: unknown;
        try {
          result = await tool.execute(args, {} as never);
        } catch (error) {
          result = (error as Error).message;
        }
        return { result, ops };
      };
      assertEquals(await call({ path: "hello.txt", content: "x\n" }), {
        result: { path: "hello.txt", mode: "overwrite", created: false, bytesWritten: 2 },
        ops: ["put"],
      });
      assertEquals(await call({ path: "new.txt", content: "n\n", mode: "create" }), {
        result: { path: "new.txt", mode: "create", created: true, bytesWritten: 2 },
        ops: ["put"],
      });
      assertEquals(await call({ path: "new.txt", content: "again", mode: "create" }), {
        result: 'File "new.txt" already exists: use mode "overwrite" to replace it or "append"',
        ops: ["put"],
      });
      await Deno.mkdir(`${f.workspace}/dir`);
      assertEquals(await call({ path: "dir", content: "x" }), {
        result: 'Cannot write "dir": it exists and is not a regular file',
        ops: ["put"],
      });
      // A missing parent costs the look for it, as before.
      const deep = await call({ path: "a/b.txt", content: "b" });
      assertEquals(deep.result, {
        path: "a/b.txt",
        mode: "overwrite",
        created: true,
        bytesWritten: 1,
      });
      assertEquals([deep.ops[0], deep.ops.at(-1)], ["put", "put"]);
      assertEquals(await Deno.readTextFile(`${f.workspace}/hello.txt`), "x\n");
      assertEquals(await Deno.readTextFile(`${f.workspace}/new.txt`), "n\n");
      assertEquals(await names(f.workspace), ["a", "dir", "hello.txt", "new.txt"]);
    } finally {
      await sessions.close();
    }
  },
});

import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { ToolRouter } from "@toolroute/toolroute";
import { builtinTools } from "@toolroute/toolroute/deno";
import { toFsToolError } from "../../../../src/deno/builtins/paths/fs_tool_error.ts";

// Made with the file's full permissions; the tests below narrow them.
const base = await Deno.makeTempDir({ prefix: "toolroute_perm_" });
const workspace = `${base}/ws`;
await Deno.mkdir(workspace);
await Deno.writeTextFile(`${workspace}/hello.txt`, "hello\n");
await Deno.mkdir(`${base}/outside`);
await Deno.writeTextFile(`${base}/outside/secret.txt`, "secret\n");
await Deno.symlink(`${base}/outside/secret.txt`, `${workspace}/leak.txt`);
await Deno.symlink(`${base}/outside/new.txt`, `${workspace}/dangling.txt`);
const linkedWorkspace = `${base}/ws_link`;
await Deno.symlink(workspace, linkedWorkspace);
globalThis.addEventListener("unload", () => Deno.removeSync(base, { recursive: true }));

async function call(name: string, args: Record<string, unknown>, root = workspace) {
  await using router = new ToolRouter({ builtins: builtinTools({ workspace: root }) });
  const tools = await router.expose({ builtins: [name] });
  return await tools.call(name, args);
}

Deno.test({
  name: "read_file without --allow-read says the sandbox denied it and names the flag",
  permissions: { read: false },
  async fn() {
    const result = await call("read_file", { path: "hello.txt" });
    assertEquals(result.code, "permission_denied");
    assertStringIncludes(result.text, "sandbox denied read access");
    assertStringIncludes(result.text, `--allow-read=${workspace}`);
  },
});

Deno.test({
  name: "write_file without --allow-write says the sandbox denied it and names the flag",
  permissions: { read: [base], write: false },
  async fn() {
    const result = await call("write_file", { path: "new.txt", content: "x" });
    assertEquals(result.code, "permission_denied");
    assertStringIncludes(result.text, "sandbox denied write access");
    assertStringIncludes(result.text, `--allow-write=${workspace}`);
  },
});

Deno.test({
  name: "apply_patch without --allow-write changes nothing and names the flag",
  permissions: { read: [base], write: false },
  async fn() {
    const patch = "*** Begin Patch\n*** Update File: hello.txt\n@@\n-hello\n+bye\n*** End Patch";
    const result = await call("apply_patch", { patch });
    assertEquals(result.code, "permission_denied");
    assertStringIncludes(result.text, `--allow-write=${workspace}`);
    assertEquals(await Deno.readTextFile(`${workspace}/hello.txt`), "hello\n");
  },
});

Deno.test({
  name: "the file tools work under flags that name only the declared (symlinked) workspace",
  permissions: { read: [linkedWorkspace], write: [linkedWorkspace] },
  async fn() {
    const read = await call("read_file", { path: "hello.txt" }, linkedWorkspace);
    assertEquals(JSON.parse(read.text).content, "hello\n");
    const written = await call("write_file", { path: "w.txt", content: "w" }, linkedWorkspace);
    assertEquals(written.isError, false, written.text);
    const patch = "*** Begin Patch\n*** Update File: w.txt\n@@\n-w\n+patched\n*** End Patch";
    const patched = await call("apply_patch", { patch }, linkedWorkspace);
    assertEquals(patched.isError, false, patched.text);
    assertEquals(await Deno.readTextFile(`${linkedWorkspace}/w.txt`), "patched");
  },
});

Deno.test({
  name: "a symlink out that Deno's flags do not cover is reported as outside allowed roots",
  permissions: { read: [workspace], write: [workspace] },
  async fn() {
    const leak = await call("read_file", { path: "leak.txt" });
    assertEquals(leak.code, "permission_denied");
    assertStringIncludes(leak.text, "outside allowed roots");
    const dangling = await call("write_file", { path: "dangling.txt", content: "x" });
    assertStringIncludes(dangling.text, "outside allowed roots");
  },
});

Deno.test("toFsToolError() words an operating-system refusal differently from the sandbox's", () => {
  const os = toFsToolError(
    new Deno.errors.PermissionDenied("Permission denied (os error 13): open '/x/y'"),
    {
      access: "read",
      shown: "y",
      root: "/x",
    },
  );
  assertEquals(os.code, "permission_denied");
  assertStringIncludes(os.message, "operating system denied read access");
  assert(!os.message.includes("/x/y"));
  const other = toFsToolError(
    new Error("Disk quota exceeded (os error 122): write '/secret/path'"),
    {
      access: "write",
      shown: "f.txt",
      root: "/ws",
    },
  );
  assertEquals(other.message, 'Cannot write "f.txt": Disk quota exceeded (os error 122)');
});

Deno.test({
  name: "a file the operating system refuses gives permission_denied with that wording",
  permissions: { read: true, write: true, sys: ["uid"], run: ["chattr"] },
  async fn() {
    const locked = `${workspace}/locked.txt`;
    await Deno.writeTextFile(locked, "locked\n");
    try {
      if (Deno.uid() !== 0) {
        await Deno.chmod(locked, 0o000);
        const result = await call("read_file", { path: "locked.txt" });
        assertEquals(result.code, "permission_denied");
        assertStringIncludes(result.text, "operating system denied read access");
      } else if (await chattr("+i", locked)) {
        // root bypasses file modes, but not the immutable attribute: replacing the file fails.
        try {
          const result = await call("write_file", { path: "locked.txt", content: "x" });
          assertEquals(result.code, "permission_denied");
          assertStringIncludes(result.text, "operating system denied write access");
        } finally {
          await chattr("-i", locked);
        }
      } else {
        // root on a file system without the immutable attribute: the kernel still refuses a
        // hard link to a directory (EPERM), a real operating-system refusal to map.
        let refusal: unknown;
        try {
          await Deno.link(workspace, `${base}/dir_link`);
        } catch (error) {
          refusal = error;
        }
        assert(refusal instanceof Deno.errors.PermissionDenied);
        const mapped = toFsToolError(refusal, { access: "write", shown: "x", root: workspace });
        assertStringIncludes(mapped.message, "operating system denied write access");
      }
    } finally {
      await Deno.remove(locked);
    }
  },
});

/** Runs chattr; returns false when the file system does not support the attribute. */
async function chattr(flag: string, path: string): Promise<boolean> {
  try {
    const { success } = await new Deno.Command("chattr", { args: [flag, path], stderr: "null" })
      .output();
    return success;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false; // chattr is not installed
    throw error;
  }
}

import { assertEquals, assertRejects } from "@std/assert";
import { ToolError } from "@toolroute/toolroute";
import { resolveBuiltinContext } from "../../../../src/deno/builtins/builtin_context.ts";
import type { FileAccess, PutResult } from "../../../../src/deno/builtins/files/file_access.ts";
import { hostFileAccess } from "../../../../src/deno/builtins/files/host_file_access.ts";
import { putFile } from "../../../../src/deno/builtins/files/put_file.ts";
import { resolveWritePath } from "../../../../src/deno/builtins/paths/workspace_paths.ts";
import { makeFixture } from "../_fixture.ts";

async function names(dir: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(dir)) found.push(entry.name);
  return found.sort();
}

Deno.test("putFile() creates missing parents after put found one missing, and says what put did", async () => {
  await using f = await makeFixture();
  const ctx = resolveBuiltinContext(f.context);
  const files = hostFileAccess(ctx);
  const puts: string[] = [];
  const counted: FileAccess = {
    ...files,
    put: (target, data, options) => (puts.push(target.display), files.put(target, data, options)),
  };
  const target = resolveWritePath(ctx, "a/b/c.txt");
  const data = new TextEncoder().encode("c\n");
  assertEquals(await putFile(counted, target, { data, shown: "a/b/c.txt", expect: "absent" }), {
    written: true,
    before: undefined,
  });
  assertEquals(puts, ["a/b/c.txt", "a/b/c.txt"]);
  assertEquals(await Deno.readTextFile(`${f.workspace}/a/b/c.txt`), "c\n");
  const again = await putFile(counted, target, { data, shown: "a/b/c.txt", expect: "absent" });
  assertEquals([again.written, again.before?.isFile], [false, true]);
  assertEquals(puts.length, 3, "an existing directory costs one put");
});

Deno.test("putFile() removes the parents it created when the put then refuses or fails", async () => {
  await using f = await makeFixture();
  const ctx = resolveBuiltinContext(f.context);
  const files = hostFileAccess(ctx);
  const data = new TextEncoder().encode("x");
  // The first put finds the parent missing; the second (the race a command could make) refuses
  // or fails.
  const secondPut = (second: () => Promise<PutResult>): FileAccess => {
    let calls = 0;
    return {
      ...files,
      put: () => ++calls === 1 ? Promise.reject(new Deno.errors.NotFound("missing")) : second(),
    };
  };
  const target = resolveWritePath(ctx, "new/deep/x.txt");
  const refused = secondPut(() =>
    files.lstat(f.workspace).then((dir) => ({ written: false, before: dir }))
  );
  assertEquals(
    (await putFile(refused, target, { data, shown: "x", expect: "absent" })).written,
    false,
  );
  assertEquals(await names(f.workspace), ["hello.txt"]);
  const failing = secondPut(() => Promise.reject(new Deno.errors.PermissionDenied("no")));
  const error = await assertRejects(
    () => putFile(failing, target, { data, shown: "x" }),
    ToolError,
  );
  assertEquals(error.code, "permission_denied");
  assertEquals(await names(f.workspace), ["hello.txt"]);
});

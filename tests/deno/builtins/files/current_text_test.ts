import { hostFileAccess } from "../../../../src/deno/builtins/files/host_file_access.ts";
import { assertEquals, assertRejects } from "@std/assert";
import { ToolError } from "@toolroute/toolroute";
import { resolveBuiltinContext } from "@toolroute/toolroute/deno";
import { MAX_EDIT_BYTES, readCurrent } from "../../../../src/deno/builtins/files/current_text.ts";
import { resolveWritePath } from "../../../../src/deno/builtins/paths/workspace_paths.ts";
import { makeFixture } from "../_fixture.ts";

Deno.test("readCurrent() returns the text with its mode and identity, or undefined when absent", async () => {
  await using f = await makeFixture();
  const ctx = resolveBuiltinContext(f.context);
  const hello = await readCurrent(hostFileAccess(ctx), resolveWritePath(ctx, "hello.txt"), {
    shown: "hello.txt",
  });
  const info = await Deno.stat(`${f.workspace}/hello.txt`);
  assertEquals(hello?.text, "hello\nworld\n");
  assertEquals(hello?.identity, { dev: info.dev, ino: info.ino });
  assertEquals(
    await readCurrent(hostFileAccess(ctx), resolveWritePath(ctx, "new.txt"), {
      shown: "new.txt",
    }),
    undefined,
  );
});

Deno.test("readCurrent() refuses directories and binary files", async () => {
  await using f = await makeFixture();
  const ctx = resolveBuiltinContext(f.context);
  await Deno.mkdir(`${f.workspace}/dir`);
  await Deno.writeFile(`${f.workspace}/bin`, new Uint8Array([1, 0, 2]));
  await assertRejects(
    () =>
      readCurrent(hostFileAccess(ctx), {
        real: `${f.workspace}/dir`,
        display: "dir",
        root: f.workspace,
      }, { shown: "dir" }),
    ToolError,
    "not a regular file",
  );
  await assertRejects(
    () => readCurrent(hostFileAccess(ctx), resolveWritePath(ctx, "bin"), { shown: "bin" }),
    ToolError,
    "not a text file",
  );
});

Deno.test("readCurrent() refuses a file over the edit limit without reading it into memory", async () => {
  await using f = await makeFixture();
  const ctx = resolveBuiltinContext(f.context);
  {
    using file = await Deno.open(`${f.workspace}/huge.log`, { create: true, write: true });
    await file.truncate(4 * 1024 * 1024 * 1024); // 4 GiB, sparse: no disk blocks
  }
  const before = Deno.memoryUsage().rss;
  await assertRejects(
    () =>
      readCurrent(hostFileAccess(ctx), resolveWritePath(ctx, "huge.log"), {
        shown: "huge.log",
      }),
    ToolError,
    `over the ${MAX_EDIT_BYTES}-byte limit`,
  );
  assertEquals(Deno.memoryUsage().rss - before < 64 * 1024 * 1024, true);
});

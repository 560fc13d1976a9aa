import { assertEquals, assertRejects } from "@std/assert";
import { ToolError } from "@toolroute/toolroute";
import { resolveBuiltinContext } from "@toolroute/toolroute/deno";
import {
  checkOpenedFileSync,
  checkPathStillLeadsTo,
  checkStagedFile,
} from "../../../../src/deno/builtins/paths/opened_file_check.ts";
import {
  resolveReadPath,
  resolveWritePath,
} from "../../../../src/deno/builtins/paths/workspace_paths.ts";

// Made with the file's full permissions; the tests narrow them to the exact flags of the context.
const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_opened_" }));
const workspace = `${base}/ws`;
const outside = `${base}/out`;
await Deno.mkdir(`${workspace}/d`, { recursive: true });
await Deno.mkdir(outside);
await Deno.writeTextFile(`${workspace}/d/f.txt`, "inside\n");
await Deno.writeTextFile(`${outside}/f.txt`, "outside\n");
await Deno.symlink(outside, `${workspace}/lnk`);
globalThis.addEventListener("unload", () => Deno.removeSync(base, { recursive: true }));
const ctx = resolveBuiltinContext({ workspace });

/** Swaps the real directory `d` and the symlink `lnk` (as a racing process would). */
async function swap(): Promise<void> {
  await Deno.rename(`${workspace}/d`, `${workspace}/tmp`);
  await Deno.rename(`${workspace}/lnk`, `${workspace}/d`);
  await Deno.rename(`${workspace}/tmp`, `${workspace}/lnk`);
}

Deno.test({
  name: "checkOpenedFileSync() refuses a file opened after its directory was swapped for a symlink",
  permissions: { read: [workspace], write: [workspace] },
  async fn() {
    const target = resolveReadPath(ctx, "d/f.txt"); // checked while `d` is real
    await swap(); // `d` now leads outside
    try {
      using file = await Deno.open(target.real);
      const error = await assertRejects(
        () => Promise.try(() => checkOpenedFileSync(ctx, file, { target, shown: "d/f.txt" })),
        ToolError,
      );
      assertEquals(error.code, "permission_denied");
    } finally {
      await swap();
    }
  },
});

Deno.test({
  name: "checkOpenedFileSync() accepts the checked file and returns its information",
  permissions: { read: [workspace] },
  async fn() {
    const target = resolveReadPath(ctx, "d/f.txt");
    using file = await Deno.open(target.real);
    const info = checkOpenedFileSync(ctx, file, { target, shown: "d/f.txt" });
    assertEquals(info?.size, 7);
  },
});

Deno.test({
  name: "checkStagedFile() refuses a temporary file created through a swapped symlink",
  permissions: { read: [workspace], write: [workspace] },
  async fn() {
    const target = resolveWritePath(ctx, "d/new.txt");
    await swap();
    const temp = `${workspace}/d/.new.txt.test.tmp`;
    try {
      using file = await Deno.open(temp, { write: true, createNew: true });
      const error = await assertRejects(
        () => Promise.try(() => checkStagedFile(ctx, file, { temp, target, shown: "d/new.txt" })),
        ToolError,
      );
      assertEquals(error.code, "permission_denied");
      await Deno.remove(temp);
    } finally {
      await swap();
    }
  },
});

Deno.test("checkOpenedFileSync() walks a path whose first name starts with two dots, also with broad permissions", async () => {
  // "..d" is a name inside the workspace, not a way out: the symlink walk must not skip it.
  await Deno.mkdir(`${workspace}/..d`);
  await Deno.writeTextFile(`${workspace}/..d/f.txt`, "inside\n");
  await Deno.symlink(outside, `${workspace}/..lnk`);
  const target = resolveReadPath(ctx, "..d/f.txt");
  await Deno.rename(`${workspace}/..d`, `${workspace}/..tmp`);
  await Deno.rename(`${workspace}/..lnk`, `${workspace}/..d`);
  try {
    using file = await Deno.open(target.real);
    const error = await assertRejects(
      () => Promise.try(() => checkOpenedFileSync(ctx, file, { target, shown: "..d/f.txt" })),
      ToolError,
    );
    assertEquals(error.code, "permission_denied");
  } finally {
    await Deno.remove(`${workspace}/..d`);
    await Deno.remove(`${workspace}/..tmp`, { recursive: true });
  }
});

Deno.test({
  name:
    "checkPathStillLeadsTo() refuses, after reading, a path whose directory became a symlink or whose file was replaced",
  permissions: { read: [workspace], write: [workspace] },
  async fn() {
    const target = resolveReadPath(ctx, "d/f.txt");
    using file = await Deno.open(target.real);
    const opened = checkOpenedFileSync(ctx, file, { target, shown: "d/f.txt" })!;
    checkPathStillLeadsTo(ctx, opened, { target, shown: "d/f.txt" }); // nothing changed: accepted
    await swap(); // `d` now leads outside
    try {
      let refused: unknown;
      try {
        checkPathStillLeadsTo(ctx, opened, { target, shown: "d/f.txt" });
      } catch (error) {
        refused = error;
      }
      assertEquals((refused as ToolError).code, "permission_denied");
    } finally {
      await swap();
    }
    // Another file renamed over the path (no symlink anywhere): its identity differs.
    await Deno.writeTextFile(`${workspace}/d/g.txt`, "inside\n");
    await Deno.rename(`${workspace}/d/g.txt`, `${workspace}/d/f.txt`);
    let replaced: unknown;
    try {
      checkPathStillLeadsTo(ctx, opened, { target, shown: "d/f.txt" });
    } catch (error) {
      replaced = error;
    }
    assertEquals((replaced as ToolError).code, "permission_denied");
  },
});

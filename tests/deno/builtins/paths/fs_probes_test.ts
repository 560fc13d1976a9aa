import { assertEquals, assertThrows } from "@std/assert";
import { join } from "@std/path";
import { lstatSyncOrUndefined } from "../../../../src/deno/builtins/paths/fs_probes.ts";

Deno.test("lstatSyncOrUndefined() describes a link itself, and gives undefined for a missing path", async () => {
  const dir = await Deno.makeTempDir({ prefix: "toolroute_lstat_" });
  try {
    await Deno.writeTextFile(join(dir, "file"), "x");
    await Deno.symlink(join(dir, "missing"), join(dir, "link"));
    assertEquals(lstatSyncOrUndefined(join(dir, "file"))?.isFile, true);
    assertEquals(lstatSyncOrUndefined(join(dir, "link"))?.isSymlink, true);
    assertEquals(lstatSyncOrUndefined(join(dir, "missing")), undefined);
    // Other errors are the caller's to judge: a file is not a folder.
    assertThrows(() => lstatSyncOrUndefined(join(dir, "file", "below")), Deno.errors.NotADirectory);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

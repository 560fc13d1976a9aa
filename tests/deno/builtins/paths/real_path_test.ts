import { assertEquals, assertThrows } from "@std/assert";
import { realTargetSync } from "../../../../src/deno/builtins/paths/real_path.ts";

Deno.test("realTargetSync() resolves new paths, chained and dangling symlinks to where they lead", async () => {
  const base = await Deno.realPath(await Deno.makeTempDir());
  try {
    await Deno.mkdir(`${base}/real`);
    await Deno.symlink(`${base}/real`, `${base}/link`);
    await Deno.symlink("link", `${base}/chain`);
    await Deno.symlink(`${base}/real/future/file.txt`, `${base}/dangling`);
    assertEquals(realTargetSync(`${base}/chain/new/deep.txt`), `${base}/real/new/deep.txt`);
    assertEquals(realTargetSync(`${base}/dangling`), `${base}/real/future/file.txt`);
    assertEquals(realTargetSync(`${base}/nothing/here`), `${base}/nothing/here`);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("realTargetSync() fails on a symlink loop instead of spinning", async () => {
  const base = await Deno.realPath(await Deno.makeTempDir());
  try {
    await Deno.symlink(`${base}/b`, `${base}/a`);
    await Deno.symlink(`${base}/a`, `${base}/b`);
    assertThrows(() => realTargetSync(`${base}/a/x`));
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

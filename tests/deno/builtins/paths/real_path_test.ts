import { assertEquals, assertRejects } from "@std/assert";
import { realTarget } from "../../../../src/deno/builtins/paths/real_path.ts";

Deno.test("realTarget() resolves new paths, chained and dangling symlinks to where they lead", async () => {
  const base = await Deno.realPath(await Deno.makeTempDir());
  try {
    await Deno.mkdir(`${base}/real`);
    await Deno.symlink(`${base}/real`, `${base}/link`);
    await Deno.symlink("link", `${base}/chain`);
    await Deno.symlink(`${base}/real/future/file.txt`, `${base}/dangling`);
    assertEquals(await realTarget(`${base}/chain/new/deep.txt`), `${base}/real/new/deep.txt`);
    assertEquals(await realTarget(`${base}/dangling`), `${base}/real/future/file.txt`);
    assertEquals(await realTarget(`${base}/nothing/here`), `${base}/nothing/here`);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("realTarget() fails on a symlink loop instead of spinning", async () => {
  const base = await Deno.realPath(await Deno.makeTempDir());
  try {
    await Deno.symlink(`${base}/b`, `${base}/a`);
    await Deno.symlink(`${base}/a`, `${base}/b`);
    await assertRejects(() => realTarget(`${base}/a/x`));
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

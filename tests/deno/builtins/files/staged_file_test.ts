import { assert, assertEquals } from "@std/assert";
import { stageFile, tempPathFor } from "../../../../src/deno/builtins/files/staged_file.ts";
import { lstatSyncOrUndefined } from "../../../../src/deno/builtins/paths/fs_probes.ts";

Deno.test("stageFile() writes a hidden temporary file next to the target with the given mode", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const temp = await stageFile(`${dir}/target.sh`, new TextEncoder().encode("x"), {
      mode: 0o751,
    });
    assert(temp.startsWith(`${dir}/.target.sh.toolroute-`));
    assertEquals(await Deno.readTextFile(temp), "x");
    assertEquals((await Deno.stat(temp)).mode! & 0o777, 0o751);
    assertEquals(lstatSyncOrUndefined(`${dir}/target.sh`), undefined);
    assert(tempPathFor(`${dir}/t`) !== tempPathFor(`${dir}/t`));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

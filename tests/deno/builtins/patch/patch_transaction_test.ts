import { hostFileAccess } from "../../../../src/deno/builtins/files/host_file_access.ts";
import { assertEquals } from "@std/assert";
import { resolveBuiltinContext } from "@toolroute/toolroute/deno";
import { parseCodexPatch } from "../../../../src/deno/builtins/patch/codex_patch_parser.ts";
import { applyEdits } from "../../../../src/deno/builtins/patch/patch_transaction.ts";
import { makeFixture } from "../_fixture.ts";

Deno.test("applyEdits() sees earlier edits of the same patch: update a file twice, add then move it", async () => {
  await using f = await makeFixture();
  const edits = parseCodexPatch(
    "*** Begin Patch\n*** Update File: hello.txt\n@@\n-hello\n+hi\n" +
      "*** Update File: hello.txt\n@@\n-world\n+there\n" +
      "*** Add File: tmp.txt\n+t\n*** Update File: tmp.txt\n*** Move to: kept.txt\n@@\n-t\n+k\n*** End Patch",
  );
  const ctx = resolveBuiltinContext(f.context);
  const result = await applyEdits(ctx, hostFileAccess(ctx), {
    edits,
    signal: new AbortController().signal,
  });
  assertEquals(result.fileChanges.map((c) => [c.operation, c.path]), [
    ["update", "hello.txt"],
    ["update", "hello.txt"],
    ["add", "tmp.txt"],
    ["move", "kept.txt"],
  ]);
  assertEquals(await Deno.readTextFile(`${f.workspace}/hello.txt`), "hi\nthere\n");
  assertEquals(await Deno.readTextFile(`${f.workspace}/kept.txt`), "k\n");
  const names: string[] = [];
  for await (const entry of Deno.readDir(f.workspace)) names.push(entry.name);
  assertEquals(names.sort(), ["hello.txt", "kept.txt"]);
});

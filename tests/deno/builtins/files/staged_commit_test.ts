import { hostFileAccess } from "../../../../src/deno/builtins/files/host_file_access.ts";
import { assertEquals, assertRejects } from "@std/assert";
import { ToolError } from "@toolroute/toolroute";
import { resolveBuiltinContext } from "@toolroute/toolroute/deno";
import { commit, type Target } from "../../../../src/deno/builtins/files/staged_commit.ts";
import { resolveWritePath } from "../../../../src/deno/builtins/paths/workspace_paths.ts";
import { makeFixture } from "../_fixture.ts";

async function listing(dir: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(dir)) found.push(entry.name);
  return found.sort();
}

Deno.test("commit() restores the files it already replaced when a later file fails", async () => {
  await using f = await makeFixture();
  const ctx = resolveBuiltinContext(f.context);
  await Deno.writeTextFile(`${f.workspace}/first.txt`, "first\n");
  await Deno.writeTextFile(`${f.workspace}/second.txt`, "second\n");
  const target = (path: string, onDisk: string | null, content: string | null) =>
    ({ path: resolveWritePath(ctx, path), onDisk, content }) as Target;
  const targets = [
    target("first.txt", "first\n", "FIRST\n"),
    target("new/dir/third.txt", null, "third\n"),
    target("second.txt", "second\n", null),
    target("late.txt", null, "late\n"),
  ];
  // A directory appears where the last new file goes: its rename fails after the first three
  // operations are already in place, so all of them must be undone.
  await Deno.mkdir(`${f.workspace}/late.txt/occupied`, { recursive: true });
  await assertRejects(
    () => commit(hostFileAccess(ctx), targets, { signal: new AbortController().signal }),
    ToolError,
  );
  assertEquals(await Deno.readTextFile(`${f.workspace}/first.txt`), "first\n");
  assertEquals(await Deno.readTextFile(`${f.workspace}/second.txt`), "second\n");
  assertEquals(await listing(f.workspace), ["first.txt", "hello.txt", "late.txt", "second.txt"]);
  assertEquals(await listing(`${f.workspace}/late.txt`), ["occupied"]);
});

Deno.test("commit() changes nothing when the signal aborts before the first rename", async () => {
  await using f = await makeFixture();
  const ctx = resolveBuiltinContext(f.context);
  const path = resolveWritePath(ctx, "hello.txt");
  const controller = new AbortController();
  controller.abort();
  await assertRejects(() =>
    commit(hostFileAccess(ctx), [{ path, onDisk: "hello\nworld\n", content: "changed\n" }], {
      signal: controller.signal,
    })
  );
  assertEquals(await Deno.readTextFile(`${f.workspace}/hello.txt`), "hello\nworld\n");
  assertEquals(await listing(f.workspace), ["hello.txt"]);
});

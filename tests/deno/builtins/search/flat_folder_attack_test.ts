/**
 * Outside attack: one folder of very many entries (what a model's command makes with
 * `seq 200000 | xargs touch`) was listed, sorted and gone through by an in-process `glob` or
 * `grep` as one step on the host's event loop (`Deno.readDirSync`, one `sort`, the walk ticking
 * only between folders): 200,000 names held `serve`'s loop about 1.3 s for one glob, other users'
 * requests, timers and the call's own deadline waiting. Sandboxed, the supervisor lists the folder
 * but the host sorted the listing and went through it in one step. Counts only: another user's
 * requests answered while the search ran.
 */
import { assert, assertEquals } from "@std/assert";
import { makeFixture } from "../_fixture.ts";
import { besideOtherUser, searchTools } from "./_search_fixture.ts";
import { ListedTree } from "../../../../src/deno/builtins/search/listed_tree.ts";
import { SearchBudget } from "../../../../src/deno/builtins/search/search_budget.ts";
import { walkTree } from "../../../../src/deno/builtins/search/walk_tree.ts";

const FILES = 100_000;

Deno.test(`glob over one folder of ${FILES} files in process leaves another user's requests served`, async () => {
  await using f = await makeFixture();
  const dir = `${f.workspace}/flat`;
  await Deno.mkdir(dir);
  for (let i = 0; i < FILES; i++) Deno.writeFileSync(`${dir}/f${i}`, new Uint8Array());
  Deno.writeFileSync(`${dir}/zz_last`, new Uint8Array());
  await using s = await searchTools({ ...f.context, commandTimeoutMs: 600_000 });
  const { value, answered, turns } = await besideOtherUser(() =>
    s.tools.call("glob", { pattern: "**/zz_*" })
  );
  // The attack ran: the folder holds every file, and the search went through all of them.
  assertEquals((await Array.fromAsync(Deno.readDir(dir))).length, FILES + 1);
  assert(!value.isError, value.text);
  assertEquals(JSON.parse(value.text).paths, ["flat/zz_last"]);
  // Contained: the other user was answered again and again while it ran (in one step: once).
  assert(answered >= 20, `${answered} requests answered in ${turns} turns`);
  // And the search's deadline is checked within the folder: it ended a success past it.
  await using short = await searchTools({ ...f.context, commandTimeoutMs: 100 });
  const late = await short.tools.call("glob", { pattern: "**/zz_*" });
  assertEquals([late.isError, late.code], [true, "timeout"], late.text);
});

Deno.test("the host's walk over a sandbox's listing of one folder of 200,000 files leaves another user's requests served", async () => {
  // What the supervisor streams for such a folder, in the file system's order (not by name).
  const tree = new ListedTree();
  tree.add("flat", "dir");
  for (let i = 0; i < 200_000; i++) tree.add(`flat/f${(i * 7919) % 200_000}`, "file");
  const budget = new SearchBudget(new AbortController().signal, 600_000, 1e9);
  const files: string[] = [];
  const { answered, turns } = await besideOtherUser(() =>
    walkTree(tree, {
      start: "",
      gitignore: true,
      budget,
      onFile: (path) => void files.push(path),
    })
  );
  // The attack ran: the walk went through every name, in order.
  assertEquals(files.length, 200_000);
  assertEquals([files[0], files[1], files.at(-1)], ["flat/f0", "flat/f1", "flat/f99999"]);
  assert(answered >= 20, `${answered} requests answered in ${turns} turns`);
});

/**
 * Outside attack: a `.gitignore` of a megabyte of rules (one line of a sandboxed command:
 * `seq -f 'n%gx*q/' 90000 > .gitignore`, or a model's write_file with bash off). The searches
 * check every entry against every rule of its folder and the folders above, on the host's event
 * loop, in process and over a sandbox's listing alike, and tick only every 32 entries: one check
 * took over 100 ms, a slice of 32 entries seconds (another user's requests got no answer for the
 * whole search, past its deadline). Counts only: the rules tried between two ticks of the walk.
 */
import { assert, assertEquals } from "@std/assert";
import { makeFixture } from "../_fixture.ts";
import { HostTree } from "../../../../src/deno/builtins/search/host_tree.ts";
import { ListedTree } from "../../../../src/deno/builtins/search/listed_tree.ts";
import { SearchBudget } from "../../../../src/deno/builtins/search/search_budget.ts";
import { type TreeView, walkTree } from "../../../../src/deno/builtins/search/walk_tree.ts";

const FILES = 2_000;

/** A rule that applies first, then a megabyte of rules that match nothing. */
function megabyteOfRules(): string {
  let text = "dropped.txt\n";
  for (let i = 0; text.length < 1_000_000; i++) text += `n${i}x*q/\n`;
  return text;
}

/**
 * Walks a tree, counting the regular expressions tested (each rule of `ignore` is one) between
 * two ticks of the search's budget.
 */
async function testsBetweenTicks(view: TreeView): Promise<{ most: number; files: string[] }> {
  const budget = new SearchBudget(new AbortController().signal, 3_000, 1e9);
  let tests = 0;
  let most = 0;
  const tick = budget.tick.bind(budget);
  budget.tick = () => {
    most = Math.max(most, tests);
    tests = 0;
    return tick();
  };
  const test = RegExp.prototype.test;
  RegExp.prototype.test = function (this: RegExp, input: string) {
    tests++;
    return test.call(this, input);
  };
  const files: string[] = [];
  try {
    await walkTree(view, {
      start: "",
      gitignore: true,
      budget,
      onFile: (path) => void files.push(path),
    });
  } catch (error) {
    // The walk may reach its deadline: what counts is how it got there.
    if (!(error instanceof Error && /took longer/.test(error.message))) throw error;
  } finally {
    RegExp.prototype.test = test;
  }
  return { most: Math.max(most, tests), files };
}

Deno.test("the walk over a sandbox's listing with a .gitignore of a megabyte of rules ticks within a bounded number of rule tests", async () => {
  const tree = new ListedTree();
  tree.gitignores.set("", megabyteOfRules());
  for (const name of [".gitignore", "dropped.txt", "kept.txt"]) tree.add(name, "file");
  tree.add("many", "dir");
  for (let i = 0; i < FILES; i++) tree.add(`many/f${i}`, "file");
  const { most, files } = await testsBetweenTicks(tree);
  // The attack ran: the rules were read and applied.
  assertEquals(files.slice(0, 2), [".gitignore", "kept.txt"]);
  // Contained: tens of thousands of tests at most between two ticks, compiling the rules kept included (millions before).
  assert(most <= 50_000, `${most} rule tests between two ticks`);
});

Deno.test("the walk in process with a .gitignore of a megabyte of rules ticks within a bounded number of rule tests", async () => {
  await using f = await makeFixture();
  const text = megabyteOfRules();
  await Deno.writeTextFile(`${f.workspace}/.gitignore`, text);
  await Deno.writeTextFile(`${f.workspace}/dropped.txt`, "");
  await Deno.mkdir(`${f.workspace}/many`);
  for (let i = 0; i < FILES; i++) Deno.writeFileSync(`${f.workspace}/many/f${i}`, new Uint8Array());
  const { most, files } = await testsBetweenTicks(new HostTree(f.workspace));
  // The attack ran: a megabyte (the most the walk reads of a .gitignore), read and applied.
  assert(text.length > 990_000 && text.length <= 1 << 20, `${text.length}`);
  assertEquals(files.slice(0, 2), [".gitignore", "hello.txt"]);
  assert(most <= 50_000, `${most} rule tests between two ticks`);
});

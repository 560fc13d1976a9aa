/**
 * Outside attack: an in-process `glob` or `grep` reads folders with `Deno.readDir` and reads a few
 * subfolders' listings ahead of the walk. A search that ended before those listings did (its
 * deadline, a client's cancellation, or enough results) left them behind: one that ended at its
 * deadline or by an abort gave up each listing in the middle and never closed it, a descriptor
 * `serve` lost for good (no garbage collection closes it): each cancelled search of a large tree
 * lost a few, and a client (or a model whose searches time out) ran `serve` out of descriptors,
 * every user's files and connections with it. One stopped early by its results left its
 * listings reading on to their ends, for no one. Counts only: descriptors open on the tree, and
 * the listings' pauses after the walk.
 */
import { assert, assertEquals } from "@std/assert";
import { makeFixture } from "../_fixture.ts";
import { searchTools } from "./_search_fixture.ts";
import { HostTree } from "../../../../src/deno/builtins/search/host_tree.ts";
import { SearchBudget } from "../../../../src/deno/builtins/search/search_budget.ts";
import { walkTree } from "../../../../src/deno/builtins/search/walk_tree.ts";

const FOLDERS = ["b", "c", "d", "e"];
const FILES = 20_000;

/** A workspace whose first folder `a` holds two files, then four folders of many files. */
async function largeTree(workspace: string): Promise<void> {
  await Deno.mkdir(`${workspace}/a`);
  for (const name of ["x", "y"]) Deno.writeFileSync(`${workspace}/a/${name}`, new Uint8Array());
  for (const folder of FOLDERS) {
    await Deno.mkdir(`${workspace}/${folder}`);
    for (let i = 0; i < FILES; i++) {
      Deno.writeFileSync(`${workspace}/${folder}/f${i}`, new Uint8Array());
    }
  }
}

/**
 * The process's descriptors open on a folder below `workspace`, read by `find` (Deno itself
 * reads `/proc/<pid>` only with `--allow-all`, which the test runner does not give).
 */
function openBelow(workspace: string): number {
  // Synchronous: the count is of this moment, the loop held (no listing closes meanwhile).
  const { stdout } = new Deno.Command("find", {
    args: [`/proc/${Deno.pid}/fd`, "-mindepth", "1", "-printf", "%l\\n"],
    stderr: "null",
  }).outputSync();
  return new TextDecoder().decode(stdout).split("\n")
    .filter((target) => target.startsWith(`${workspace}/`)).length;
}

/** Waits until no descriptor is open below `workspace`, or about 20 s: the count left. */
async function settled(workspace: string): Promise<number> {
  for (let i = 0; i < 200 && openBelow(workspace) > 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return openBelow(workspace);
}

Deno.test("in-process searches cancelled or past their deadline close every folder they were reading", async () => {
  await using f = await makeFixture();
  await largeTree(f.workspace);
  await using s = await searchTools({ ...f.context, commandTimeoutMs: 30_000 });
  let openAtEnd = 0;
  const codes = new Set<string | undefined>();
  for (let i = 0; i < 10; i++) {
    const controller = new AbortController();
    const call = i % 2 === 0
      ? s.tools.call("glob", { pattern: "**/zz" }, { signal: controller.signal })
      : s.tools.call("grep", { pattern: "zz" }, { signal: controller.signal });
    // A client's cancellation once the walk is under way.
    setTimeout(() => controller.abort(), 20);
    const result = await call;
    codes.add(result.code);
    openAtEnd += openBelow(f.workspace);
  }
  for (let i = 0; i < 4; i++) {
    const late = await s.tools.call("glob", { pattern: "**/zz" }, { timeoutMs: 30 + 20 * i });
    codes.add(late.code);
    openAtEnd += openBelow(f.workspace);
  }
  // The attack ran: every search was cancelled or timed out, with folders still being read.
  assertEquals([...codes].sort(), ["aborted", "timeout"]);
  assert(openAtEnd > 0, "no listing was under way when a search ended");
  // Contained: once the searches are over, no folder of the tree is left open.
  assertEquals(await settled(f.workspace), 0);
});

Deno.test("a walk stopped early gives up the listings it read ahead", async () => {
  await using f = await makeFixture();
  await largeTree(f.workspace);
  const budget = new SearchBudget(new AbortController().signal, 600_000, 1e9);
  let over = false;
  let pausesAfter = 0;
  const tick = budget.tick.bind(budget);
  budget.tick = () => {
    if (over) pausesAfter++;
    return tick();
  };
  const files: string[] = [];
  const stopped = await walkTree(new HostTree(f.workspace), {
    start: "",
    gitignore: false,
    budget,
    onFile: (path) => files.push(path) === 1,
  });
  over = true;
  const openAtEnd = openBelow(f.workspace);
  assertEquals(await settled(f.workspace), 0);
  // The attack ran: the walk stopped at its first file, its four large neighbours being read.
  assertEquals([stopped, files], [true, ["a/x"]]);
  assert(openAtEnd > 0, "no listing was under way when the walk stopped");
  // Contained: they stopped at their next pause (each a slice of entries), not at their ends
  // (4 x 20,000 entries: over 2,000 pauses).
  assert(pausesAfter <= 2 * FOLDERS.length, `${pausesAfter} pauses after the walk stopped`);
});

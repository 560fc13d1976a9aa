/**
 * Outside attack on searches and the containment walk that yielded with `setImmediate` (not a 0 ms
 * timeout): while immediates keep Deno's event loop busy it runs timers at every turn but polls
 * sockets and pipes only every few dozen turns, so a hostile model's long search (or a command's
 * tens of thousands of folders) left another user's HTTP request waiting for hundreds of ms of
 * slices while every timer check passed. Counts only: how many round trips of another user were
 * answered beside how many turns a zero-delay timer chain saw.
 */
import { assert, assertEquals } from "@std/assert";
import { makeFixture } from "../_fixture.ts";
import { besideOtherUser, sandboxed, searchTools, writeTree } from "./_search_fixture.ts";
import { scanAndContain } from "../../../../src/deno/builtins/sandbox/planted_repositories.ts";
import { exists } from "../../../_helpers/exists.ts";
import { skipWithoutBwrap } from "../../../_helpers/bwrap.ts";

// Hostile for a backtracking engine, matched in many slices; few lines match (those without a
// `b`), so no search ends early at the output bound.
const HOSTILE = "^(a|a)*$";
const TEXT = Array.from({ length: 6000 }, (_, i) => `${"a".repeat(200)}${i % 500 ? "b" : ""}`)
  .join("\n");

for (const mode of ["in process", "sandboxed"] as const) {
  Deno.test({
    name: `two hostile searches at once (${mode}) leave another user's requests served`,
    ignore: mode === "sandboxed" && skipWithoutBwrap(),
  }, async () => {
    await using f = await makeFixture();
    const files: Record<string, string> = {};
    for (let i = 0; i < 8; i++) files[`h/${i}.txt`] = TEXT;
    await writeTree(f.workspace, files);
    const context = mode === "sandboxed" ? sandboxed(f.context) : f.context;
    await using s = await searchTools({ ...context, commandTimeoutMs: 600_000 });
    await s.tools.call("glob", { pattern: "h/*" }); // starts the sandbox session
    const grep = () => s.tools.call("grep", { pattern: HOSTILE, path: "h" });
    const { value, answered, turns } = await besideOtherUser(() => Promise.all([grep(), grep()]));
    // The attack ran: both searches judged every line (12 lines without a b in each of 8
    // files) over many turns of the loop.
    for (const result of value) {
      assert(!result.isError, result.text.slice(0, 200));
      assertEquals(JSON.parse(result.text).matches.length, 96);
    }
    assert(turns >= 10, `the searches took only ${turns} turns of the loop`);
    // Contained: the other user was answered about as often as the loop turned (with
    // immediates: one or two answers in hundreds of turns).
    assert(answered * 2 >= turns, `${answered} requests answered in ${turns} turns`);
  });
}

Deno.test("the containment walk over 30,000 folders leaves another user's requests served and finds the plant", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_plant_" }));
  try {
    const workspace = { declared: root, real: root };
    await scanAndContain(workspace, [".git"]);
    for (let i = 0; i < 30; i++) {
      Deno.mkdirSync(`${root}/d${i}`);
      for (let j = 0; j < 1000; j++) Deno.mkdirSync(`${root}/d${i}/${j}`);
    }
    const plant = `${root}/d29/999/src`;
    await writeTree(plant, { HEAD: "ref: refs/heads/main\n", "objects/x": "", "refs/x": "" });
    const { value, answered, turns } = await besideOtherUser(() =>
      scanAndContain(workspace, [".git"])
    );
    // The attack ran: the walk went through every folder over many turns, to the plant.
    assert(value.directories > 30_000, `walked ${value.directories}`);
    assert(!(await exists(`${plant}/HEAD`)), "the plant was left active");
    assert(turns >= 10, `the walk took only ${turns} turns of the loop`);
    assert(answered * 2 >= turns, `${answered} requests answered in ${turns} turns`);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

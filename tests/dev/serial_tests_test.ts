/**
 * `deno task test:deno` runs test modules in parallel, in one process
 * (`tests/_helpers/deno_tests.ts`): a module that changes the process's environment or working
 * directory (`PATH`, `HOME`, a planted host secret) would change them under every module running
 * beside it. Such modules run one at a time, in a process of their own. This test keeps that list
 * complete, so a new module that sets an environment variable (itself or through a test helper it
 * imports) cannot land in the parallel run, and keeps every listed module (and every slow one)
 * existing.
 *
 * @module
 */

import { assert, assertEquals } from "@std/assert";
import { dirname, join, relative } from "@std/path";
import { denoSideModules, runsOf, SERIAL, SLOW } from "../_helpers/deno_tests.ts";

const ROOT = new URL("../..", import.meta.url).pathname;
const PROCESS_WIDE = /Deno\.env\.(set|delete)\(|Deno\.chdir\(/;

/** The module's own text and that of the test helpers it imports by a relative path. */
async function textWithHelpers(path: string): Promise<string> {
  const text = await Deno.readTextFile(path);
  const helpers = [...text.matchAll(/from "(\.{1,2}\/[^"]+\.ts)"/g)]
    .map((match) => join(dirname(path), match[1]))
    .filter((helper) => !relative(join(ROOT, "tests"), helper).startsWith(".."));
  // A match inside a string (a test's fixture text) names no file: nothing to read.
  const texts = await Promise.all(
    helpers.map((helper) => Deno.readTextFile(helper).catch(() => "")),
  );
  return [text, ...texts].join("\n");
}

Deno.test("every serial and slow test module exists and is a module of the Deno side", async () => {
  const modules = new Set(await denoSideModules());
  assert(modules.size > 100, `only ${modules.size} test modules found: the walk missed the suite`);
  for (const path of SERIAL) assert(modules.has(path), `${path} is listed in SERIAL but not found`);
  for (const path of SLOW) assert(modules.has(path), `${path} is listed in SLOW but not found`);
});

Deno.test("every test module that changes the environment or working directory runs serially", async () => {
  const serial = new Set(SERIAL);
  const missing: string[] = [];
  for (const path of await denoSideModules()) {
    if (PROCESS_WIDE.test(await textWithHelpers(join(ROOT, path))) && !serial.has(path)) {
      missing.push(path);
    }
  }
  assertEquals(missing, [], "add these to SERIAL in tests/_helpers/deno_tests.ts");
});

Deno.test("no test module changes the environment or working directory at its top level", async () => {
  // The runner's entry modules load several test modules before the first test runs
  // (`writeEntries`): a change at a module's top level would reach the tests of every other.
  const offending: string[] = [];
  for (const path of [...await denoSideModules(), ...(await runsOf("core"))[0].modules]) {
    const lines = (await Deno.readTextFile(join(ROOT, path))).split("\n");
    lines.forEach((line, i) => {
      if (/^\S/.test(line) && PROCESS_WIDE.test(line)) offending.push(`${path}:${i + 1}`);
    });
  }
  assertEquals(offending, [], "move these into a test (and the module into SERIAL)");
});

Deno.test("each part runs each of its modules once, and a serial module never in the parallel run", async () => {
  const all = await denoSideModules();
  for (const part of ["fast", "slow"] as const) {
    const runs = await runsOf(part);
    const ran = runs.flatMap((run) => run.modules).filter((path) => path.endsWith("_test.ts"));
    const slow = new Set(SLOW);
    const expected = all.filter((path) => slow.has(path) === (part === "slow"));
    assertEquals(ran.toSorted(), expected, `${part}: a module runs twice or not at all`);
    const parallel = runs.filter((run) => run.parallel).flatMap((run) => run.modules);
    assertEquals(parallel.filter((path) => SERIAL.includes(path)), [], part);
    // The serial runs take a share of the others: none stands idle beside the parallel one.
    const serialRuns = runs.filter((run) => !run.parallel);
    if (part === "fast") {
      assertEquals(serialRuns.length, 2);
      for (const run of serialRuns) {
        assert(run.modules.some((path) => !SERIAL.includes(path)), `${run.name} has no share`);
      }
    }
  }
});

/**
 * `deno task test:deno` runs test modules in parallel (`test:deno:parallel`), in one process: a
 * module that changes the process's environment or working directory (`PATH`, `HOME`, a planted
 * host secret) would change them under every module running beside it. Such modules run after,
 * one at a time (`test:deno:serial`), and the parallel run ignores them. This test keeps the two
 * lists equal and complete, so a new module that sets an environment variable (itself or through
 * a test helper it imports) cannot land in the parallel run.
 *
 * @module
 */

import { assert, assertEquals } from "@std/assert";
import { dirname, join, relative } from "@std/path";
import { walk } from "@std/fs";

const ROOT = new URL("../..", import.meta.url).pathname;
const PROCESS_WIDE = /Deno\.env\.(set|delete)\(|Deno\.chdir\(/;
/** Folders `test:deno:parallel` runs (the others have their own task and process). */
const PARALLEL_ROOTS = ["tests/conformance", "tests/deno", "tests/dev", "tests/examples"];

async function tasks(): Promise<Record<string, string>> {
  return JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json"))).tasks;
}

/** The module's own text and that of the test helpers it imports by a relative path. */
async function textWithHelpers(path: string): Promise<string> {
  const text = await Deno.readTextFile(path);
  const helpers = [...text.matchAll(/from "(\.{1,2}\/[^"]+\.ts)"/g)]
    .map((match) => join(dirname(path), match[1]))
    .filter((helper) => relative(join(ROOT, "tests"), helper).startsWith("..") === false);
  // A match inside a string (a test's fixture text) names no file: nothing to read.
  const texts = await Promise.all(
    helpers.map((helper) => Deno.readTextFile(helper).catch(() => "")),
  );
  return [text, ...texts].join("\n");
}

Deno.test("the serial test modules are exactly the ones the parallel run ignores, and exist", async () => {
  const { "test:deno:parallel": parallel, "test:deno:serial": serial } = await tasks();
  const ignored = parallel.match(/--ignore=(\S+)/)![1].split(",");
  const listed = serial.match(/tests\/\S+_test\.ts/g)!;
  assertEquals([...ignored].sort(), [...listed].sort());
  for (const path of listed) {
    const file = await Deno.stat(join(ROOT, path)).catch(() => undefined);
    assert(file?.isFile, `${path} is listed in test:deno:serial but does not exist`);
  }
});

Deno.test("every test module that changes the environment or working directory runs serially", async () => {
  const listed = new Set((await tasks())["test:deno:serial"].match(/tests\/\S+_test\.ts/g)!);
  const missing: string[] = [];
  let seen = 0;
  for (const folder of PARALLEL_ROOTS) {
    for await (const entry of walk(join(ROOT, folder), { exts: [".ts"] })) {
      if (!entry.name.endsWith("_test.ts")) continue;
      seen++;
      const path = relative(ROOT, entry.path);
      if (PROCESS_WIDE.test(await textWithHelpers(entry.path)) && !listed.has(path)) {
        missing.push(path);
      }
    }
  }
  assert(seen > 100, `only ${seen} test modules found: the walk missed the suite`);
  assertEquals(missing, [], "add these to test:deno:serial (and the parallel run's --ignore)");
});

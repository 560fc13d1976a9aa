/**
 * No file of the repository keeps a merge's conflict markers: in a comment or a Markdown page
 * neither the type check nor the formatter sees them.
 *
 * @module
 */

import { assertEquals } from "@std/assert";
import { join } from "@std/path";
import { walk } from "@std/fs";

const ROOT = new URL("../..", import.meta.url).pathname;
const MARKER = /^(<{7}|>{7}) |^={7}$/m;

Deno.test("no file keeps a merge's conflict markers", async () => {
  const found: string[] = [];
  for (const folder of ["src", "tests", "docs", "bench", "examples", "lint", ".ci"]) {
    for await (const entry of walk(join(ROOT, folder), { includeDirs: false })) {
      if (!/\.(ts|md|json|jsonc|sh)$|\/run$/.test(entry.path)) continue;
      if (MARKER.test(await Deno.readTextFile(entry.path))) {
        found.push(entry.path.slice(ROOT.length));
      }
    }
  }
  for (const file of ["README.md", "ARCHITECTURE.md", "deno.json", "mod.ts"]) {
    if (MARKER.test(await Deno.readTextFile(join(ROOT, file)))) found.push(file);
  }
  assertEquals(found, []);
});

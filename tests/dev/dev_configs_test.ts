/**
 * The bench, edge-test and interop-test configs: each has its own import map and lock, so that
 * `deno task demo` downloads neither the comparison peers, workerd, the MCP SDK 1.x line (an
 * interop peer only) nor the OpenTelemetry SDK. They must map every package of the root
 * `deno.json` the same way, or a bench or the edge test would run other code than the library's.
 * `tests/portable/deno.json` type-checks the web-standard entries with web libraries only (no
 * `Deno` namespace: `deno task check:portable`), so it maps the same packages too.
 *
 * @module
 */

import { assertEquals } from "@std/assert";
import { join } from "@std/path";

const ROOT = new URL("../..", import.meta.url).pathname;

async function readJson(path: string): Promise<Record<string, unknown>> {
  return JSON.parse(await Deno.readTextFile(join(ROOT, path)));
}

for (const sub of ["bench", "tests/edge", "tests/interop", "tests/portable"]) {
  Deno.test(`${sub}/deno.json maps every import of the root deno.json the same way`, async () => {
    const root = (await readJson("deno.json")).imports as Record<string, string>;
    const own = (await readJson(`${sub}/deno.json`)).imports as Record<string, string>;
    const shared = Object.fromEntries(Object.keys(root).map((name) => [name, own[name]]));
    assertEquals(shared, root);
  });
}

Deno.test("the root lock holds none of the bench peers or the edge test's packages", async () => {
  const lock = await readJson("deno.lock");
  const packages = Object.keys(lock.npm as Record<string, unknown>);
  const heavy = packages.filter((name) =>
    /^(@ai-sdk|@langchain|miniflare|workerd|@cloudflare|sharp|@img|@opentelemetry\/sdk-|@modelcontextprotocol\/sdk)\b/
      .test(name)
  );
  assertEquals(heavy, []);
});

import {
  assert,
  assertEquals,
  assertNotStrictEquals,
  assertRejects,
  assertStrictEquals,
} from "@std/assert";
import { ToolError } from "@toolroute/toolroute";
import { resolveBuiltinContext } from "@toolroute/toolroute/deno";
import { contextRoots } from "../../../../src/deno/builtins/paths/context_roots.ts";
import { resolveReadPath } from "../../../../src/deno/builtins/paths/workspace_paths.ts";

const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_roots_" }));
globalThis.addEventListener("unload", () => Deno.removeSync(base, { recursive: true }));

Deno.test("contextRoots() keeps canonical roots per context and resolves symlinked ones per call", async () => {
  await Deno.mkdir(`${base}/real_ws`);
  await Deno.symlink(`${base}/real_ws`, `${base}/linked_ws`);
  const canonical = resolveBuiltinContext({ workspace: `${base}/real_ws` });
  assertStrictEquals(contextRoots(canonical), contextRoots(canonical));
  const linked = resolveBuiltinContext({ workspace: `${base}/linked_ws` });
  const first = contextRoots(linked);
  assertEquals(first.workspace, { declared: `${base}/linked_ws`, real: `${base}/real_ws` });
  assertNotStrictEquals(contextRoots(linked), first);
  // A read-only root that is missing now may appear later: not kept either.
  const missing = resolveBuiltinContext({
    workspace: `${base}/real_ws`,
    readOnlyRoots: [`${base}/later`],
  });
  assertEquals(contextRoots(missing).readOnly, []);
  await Deno.mkdir(`${base}/later`);
  assertEquals(contextRoots(missing).readOnly, [{
    declared: `${base}/later`,
    real: `${base}/later`,
  }]);
});

Deno.test("a kept canonical workspace fails closed once it is replaced by a symlink elsewhere", async () => {
  const ws = `${base}/ws`;
  const elsewhere = `${base}/elsewhere`;
  await Deno.mkdir(ws);
  await Deno.mkdir(elsewhere);
  await Deno.writeTextFile(`${ws}/a.txt`, "inside\n");
  await Deno.writeTextFile(`${elsewhere}/a.txt`, "elsewhere\n");
  const ctx = resolveBuiltinContext({ workspace: ws });
  assertEquals((await resolveReadPath(ctx, "a.txt")).real, `${ws}/a.txt`); // kept now
  await Deno.rename(ws, `${base}/ws_old`);
  await Deno.symlink(elsewhere, ws);
  const error = await assertRejects(() => resolveReadPath(ctx, "a.txt"), ToolError);
  assertEquals(error.code, "permission_denied");
  assert(!error.message.includes("elsewhere"));
});

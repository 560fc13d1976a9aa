import { join, relative } from "@std/path";
import {
  assert,
  assertEquals,
  assertNotStrictEquals,
  assertStrictEquals,
  assertThrows,
} from "@std/assert";
import { ToolError } from "@toolroute/toolroute";
import { resolveBuiltinContext } from "@toolroute/toolroute/deno";
import {
  contextRoots,
  findRoot,
  readOnlyRootsSync,
  underDeclared,
  workspaceRootSync,
} from "../../../../src/deno/builtins/paths/allowed_roots.ts";
import { within } from "../../../../src/deno/sandbox/within.ts";
import { resolveReadPath } from "../../../../src/deno/builtins/paths/workspace_paths.ts";
import { makeFixture } from "../_fixture.ts";

const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_roots_" }));
globalThis.addEventListener("unload", () => Deno.removeSync(base, { recursive: true }));

Deno.test("within() and findRoot() compare path components", () => {
  const roots = [{ declared: "/ws", real: "/private/ws" }];
  assertEquals(within("/ws", "/ws_evil"), false);
  assertEquals(findRoot(roots, { path: "/private/ws/a", kind: "real" }), roots[0]);
  assertEquals(findRoot(roots, { path: "/private/ws/a", kind: "declared" }), undefined);
});

Deno.test("underDeclared() puts the symlink-free rest under the declared root", () => {
  const root = { declared: "/link", real: "/real" };
  assertEquals(underDeclared(root, "/real/a/b"), "/link/a/b");
  assertEquals(underDeclared(root, "/real"), "/link");
});

Deno.test("underDeclared() gives a real path back as it is under a canonical root, as joining did", () => {
  for (const root of [{ declared: "/ws", real: "/ws" }, { declared: "/", real: "/" }]) {
    for (const real of [root.real, `${root.real === "/" ? "" : root.real}/a/b.txt`]) {
      const joined = join(root.declared, relative(root.real, real));
      assertEquals(
        underDeclared(root, real),
        relative(root.real, real) === "" ? root.declared : joined,
      );
    }
  }
});

Deno.test("workspaceRootSync() and readOnlyRootsSync() resolve symlinked roots and skip read-only roots that do not exist", async () => {
  await using f = await makeFixture();
  await Deno.symlink(f.workspace, `${f.base}/ws_link`);
  const ctx = resolveBuiltinContext({
    workspace: `${f.base}/ws_link`,
    readOnlyRoots: [f.readOnly, `${f.base}/gone`],
  });
  assertEquals(workspaceRootSync(ctx).real, await Deno.realPath(f.workspace));
  assertEquals(readOnlyRootsSync(ctx).roots.map((root) => root.real), [
    await Deno.realPath(f.readOnly),
  ]);
});

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
  assertEquals(resolveReadPath(ctx, "a.txt").real, `${ws}/a.txt`); // kept now
  await Deno.rename(ws, `${base}/ws_old`);
  await Deno.symlink(elsewhere, ws);
  const error = assertThrows(() => resolveReadPath(ctx, "a.txt"), ToolError);
  assertEquals(error.code, "permission_denied");
  assert(!error.message.includes("elsewhere"));
});

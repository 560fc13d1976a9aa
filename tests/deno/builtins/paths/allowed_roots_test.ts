import { join, relative } from "@std/path";
import { assertEquals } from "@std/assert";
import { resolveBuiltinContext } from "@toolroute/toolroute/deno";
import {
  findRoot,
  readOnlyRootsSync,
  underDeclared,
  within,
  workspaceRootSync,
} from "../../../../src/deno/builtins/paths/allowed_roots.ts";
import { makeFixture } from "../_fixture.ts";

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

import { assert, assertEquals, assertStringIncludes, assertThrows } from "@std/assert";
import { isToolError, ToolError } from "@toolroute/toolroute";
import { resolveBuiltinContext } from "@toolroute/toolroute/deno";
import {
  checkPathInput,
  outsideError,
  readOnlyError,
  realTargetSync,
  resolveDirectory,
  resolveReadPath,
  resolveWritePath,
} from "../../../../src/deno/builtins/paths/workspace_paths.ts";
import { within } from "../../../../src/deno/sandbox/within.ts";
import { makeFixture } from "../_fixture.ts";

function denied(
  resolve: () => unknown,
  words: string,
  hidden?: string,
): ToolError {
  const error = assertThrows(resolve);
  assert(isToolError(error), `expected a ToolError, got ${error}`);
  assertEquals(error.code, "permission_denied", error.message);
  assertStringIncludes(error.message, words);
  if (hidden !== undefined) assert(!error.message.includes(hidden), error.message);
  return error;
}

Deno.test("within() compares whole path components, not string prefixes", () => {
  assert(within("/ws", "/ws"));
  assert(within("/ws", "/ws/a/b"));
  assert(!within("/ws", "/ws_evil"));
  assert(!within("/ws", "/ws_evil/x"));
  assert(within("/", "/anything"));
  // A root written with a trailing slash holds itself, and still not its sibling.
  assert(within("/srv/data/", "/srv/data"));
  assert(within("/srv/data/", "/srv/data/x"));
  assert(!within("/srv/data/", "/srv/data2"));
});

Deno.test("resolveReadPath() accepts workspace paths and read-only roots", async () => {
  await using f = await makeFixture();
  const ctx = resolveBuiltinContext(f.context);
  const hello = resolveReadPath(ctx, "hello.txt");
  assertEquals(hello.display, "hello.txt");
  assertEquals(hello.real, await Deno.realPath(`${f.workspace}/hello.txt`));
  assertEquals(resolveReadPath(ctx, "./sub/../hello.txt").display, "hello.txt");
  assertEquals(resolveReadPath(ctx, `${f.workspace}/hello.txt`).display, "hello.txt");
  assertEquals(resolveReadPath(ctx, f.workspace).display, ".");
  assertEquals(resolveReadPath(ctx, `${f.workspace}/sub/`).display, "sub");
  assertEquals(resolveReadPath(ctx, "sub//./").display, "sub");
  const ro = resolveReadPath(ctx, `${f.readOnly}/ro.txt`);
  assertEquals(ro.root, f.readOnly);
});

Deno.test("resolveReadPath() refuses .. traversal, absolute paths outside and the sibling prefix", async () => {
  await using f = await makeFixture();
  const ctx = resolveBuiltinContext(f.context);
  denied(() => resolveReadPath(ctx, "../outside/secret.txt"), "outside allowed roots");
  denied(() => resolveReadPath(ctx, "sub/../../outside/secret.txt"), "outside allowed roots");
  denied(() => resolveReadPath(ctx, `${f.outside}/secret.txt`), "outside allowed roots");
  denied(() => resolveReadPath(ctx, `${f.sibling}/secret.txt`), "outside allowed roots");
  denied(() => resolveReadPath(ctx, "../ws_evil/secret.txt"), "outside allowed roots");
  denied(() => resolveReadPath(ctx, "/etc/passwd"), "outside allowed roots");
});

Deno.test("resolveReadPath() rejects empty paths, NUL bytes and ~ as invalid arguments", async () => {
  await using f = await makeFixture();
  const ctx = resolveBuiltinContext(f.context);
  for (const path of ["", "a\0b", "~/x", "~root/.ssh/id_rsa", 42]) {
    const error = assertThrows(() => resolveReadPath(ctx, path), ToolError);
    assertEquals(error.code, "invalid_arguments", String(path));
  }
});

Deno.test("resolveReadPath() follows symlinks: inside is fine, outside is refused without naming the target", async () => {
  await using f = await makeFixture();
  const ctx = resolveBuiltinContext(f.context);
  await Deno.symlink(`${f.workspace}/hello.txt`, `${f.workspace}/link_in.txt`);
  await Deno.symlink(`${f.outside}/secret.txt`, `${f.workspace}/link_out.txt`);
  await Deno.symlink(f.outside, `${f.workspace}/dir_out`);
  await Deno.symlink("link_out.txt", `${f.workspace}/chain.txt`);
  await Deno.symlink(`${f.outside}/missing.txt`, `${f.workspace}/dangling_out`);
  assertEquals(resolveReadPath(ctx, "link_in.txt").display, "link_in.txt");
  denied(() => resolveReadPath(ctx, "link_out.txt"), "symbolic link", f.outside);
  denied(() => resolveReadPath(ctx, "dir_out/secret.txt"), "outside allowed roots", f.outside);
  denied(() => resolveReadPath(ctx, "chain.txt"), "outside allowed roots", f.outside);
  denied(() => resolveReadPath(ctx, "dangling_out"), "outside allowed roots", f.outside);
});

Deno.test("resolveWritePath() refuses read-only roots, outside paths and links out", async () => {
  await using f = await makeFixture();
  const ctx = resolveBuiltinContext(f.context);
  denied(() => resolveWritePath(ctx, `${f.readOnly}/ro.txt`), "read-only");
  denied(() => resolveWritePath(ctx, `${f.readOnly}/new.txt`), "read-only");
  denied(() => resolveWritePath(ctx, "../x"), "outside allowed roots");
  denied(() => resolveWritePath(ctx, `${f.sibling}/new.txt`), "outside allowed roots");
  await Deno.symlink(f.outside, `${f.workspace}/dir_out`);
  denied(() => resolveWritePath(ctx, "dir_out/new/deep.txt"), "outside allowed roots", f.outside);
  await Deno.symlink(`${f.outside}/created.txt`, `${f.workspace}/dangling_out`);
  denied(() => resolveWritePath(ctx, "dangling_out"), "outside allowed roots", f.outside);
  await Deno.symlink(`${f.readOnly}/ro.txt`, `${f.workspace}/to_ro`);
  denied(() => resolveWritePath(ctx, "to_ro"), "read-only");
});

Deno.test("resolveWritePath() refuses a read-only root inside the workspace", async () => {
  await using f = await makeFixture();
  await Deno.mkdir(`${f.workspace}/vendor`);
  const ctx = resolveBuiltinContext({
    workspace: f.workspace,
    readOnlyRoots: [`${f.workspace}/vendor`],
  });
  denied(() => resolveWritePath(ctx, "vendor/lib.js"), "read-only");
  await Deno.symlink("vendor", `${f.workspace}/v`);
  denied(() => resolveWritePath(ctx, "v/lib.js"), "read-only");
  assertEquals(resolveReadPath(ctx, "vendor/../hello.txt").display, "hello.txt");
  const around = resolveBuiltinContext({ workspace: f.workspace, readOnlyRoots: [f.base] });
  assertEquals(resolveWritePath(around, "new.txt").display, "new.txt");
  denied(() => resolveWritePath(around, `${f.outside}/x`), "read-only");
});

Deno.test("resolveWritePath() follows a dangling symlink inside the workspace to its target", async () => {
  await using f = await makeFixture();
  const ctx = resolveBuiltinContext(f.context);
  await Deno.symlink("new/target.txt", `${f.workspace}/dangling_in`);
  const resolved = resolveWritePath(ctx, "dangling_in");
  assertEquals(resolved.real, `${await Deno.realPath(f.workspace)}/new/target.txt`);
});

Deno.test("resolveWritePath() refuses protected paths, also through case, .. and symlinks", async () => {
  await using f = await makeFixture();
  const ctx = resolveBuiltinContext(f.context);
  await Deno.mkdir(`${f.workspace}/.git/hooks`, { recursive: true });
  denied(() => resolveWritePath(ctx, ".git/hooks/pre-commit"), "read-only");
  denied(() => resolveWritePath(ctx, ".git"), "read-only");
  denied(() => resolveWritePath(ctx, "src/../.git/config"), "read-only");
  denied(() => resolveWritePath(ctx, ".GIT/hooks/pre-commit"), "read-only");
  denied(() => resolveWritePath(ctx, ".git./hooks/pre-commit"), "read-only");
  denied(() => resolveWritePath(ctx, ".git /hooks/pre-commit"), "read-only");
  denied(() => resolveWritePath(ctx, `${f.workspace}/.git/hooks/pre-commit`), "read-only");
  await Deno.symlink(".git/hooks", `${f.workspace}/hooks`);
  denied(() => resolveWritePath(ctx, "hooks/pre-commit"), "read-only");
  assertEquals(
    resolveWritePath(ctx, ".github/workflows/ci.yml").display,
    ".github/workflows/ci.yml",
  );
});

Deno.test("the path checks use real paths, so a workspace reached through a symlink works", async () => {
  await using f = await makeFixture();
  await Deno.symlink(f.workspace, `${f.base}/ws_link`);
  const ctx = resolveBuiltinContext({ workspace: `${f.base}/ws_link` });
  assertEquals(resolveReadPath(ctx, "hello.txt").display, "hello.txt");
  assertEquals(resolveWritePath(ctx, `${f.workspace}/new.txt`).display, "new.txt");
  denied(
    () => resolveReadPath(ctx, `${f.base}/ws_link/../outside/secret.txt`),
    "outside allowed roots",
  );
});

Deno.test("resolveDirectory() gives the workspace by default and refuses files and outside directories", async () => {
  await using f = await makeFixture();
  const ctx = resolveBuiltinContext(f.context);
  assertEquals(resolveDirectory(ctx, undefined).real, await Deno.realPath(f.workspace));
  await Deno.mkdir(`${f.workspace}/sub`);
  assertEquals(resolveDirectory(ctx, "sub").display, "sub");
  const file = assertThrows(() => resolveDirectory(ctx, "hello.txt"), ToolError);
  assertStringIncludes(file.message, "not a directory");
  await Deno.symlink(f.outside, `${f.workspace}/out`);
  denied(() => resolveDirectory(ctx, "out"), "outside allowed roots", f.outside);
  denied(() => resolveDirectory(ctx, f.sibling), "outside allowed roots");
  denied(() => resolveDirectory(ctx, f.readOnly), "commands are allowed only inside the workspace");
});

Deno.test("a missing workspace is a clear tool error", async () => {
  await using f = await makeFixture();
  const ctx = resolveBuiltinContext({ workspace: `${f.base}/nope` });
  const error = assertThrows(() => resolveReadPath(ctx, "a.txt"), ToolError);
  assertEquals(error.code, "tool_error");
  assertStringIncludes(error.message, "does not exist");
});

Deno.test("resolveReadPath() reads a backslash as a separator, for traversal too", async () => {
  await using f = await makeFixture();
  const ctx = resolveBuiltinContext(f.context);
  assertEquals(resolveReadPath(ctx, ".\\sub\\..\\hello.txt").display, "hello.txt");
  denied(() => resolveReadPath(ctx, "..\\outside\\secret.txt"), "outside allowed roots");
});

Deno.test("checkPathInput() rejects what could be misread as another path", () => {
  assertEquals(checkPathInput("src/a.ts"), "src/a.ts");
  for (const bad of ["", "a\0", "~/.ssh/id_rsa", null]) {
    assertEquals(assertThrows(() => checkPathInput(bad), ToolError).code, "invalid_arguments");
  }
});

Deno.test("the containment errors quote the given path only, shortened when huge", () => {
  const ctx = resolveBuiltinContext({ workspace: "/ws", readOnlyRoots: ["/ro"] });
  const viaLink = outsideError("docs", "reads", { viaLink: true, ctx });
  assertEquals(viaLink.code, "permission_denied");
  assertStringIncludes(viaLink.message, "through a symbolic link");
  assertStringIncludes(viaLink.message, "read-only roots");
  const huge = outsideError("x".repeat(10_000), "writes");
  assertEquals(huge.message.length < 500, true);
  assertStringIncludes(readOnlyError(".git/x", ".git").message, "read-only");
});

Deno.test("realTargetSync() resolves new paths, chained and dangling symlinks to where they lead", async () => {
  const base = await Deno.realPath(await Deno.makeTempDir());
  try {
    await Deno.mkdir(`${base}/real`);
    await Deno.symlink(`${base}/real`, `${base}/link`);
    await Deno.symlink("link", `${base}/chain`);
    await Deno.symlink(`${base}/real/future/file.txt`, `${base}/dangling`);
    assertEquals(realTargetSync(`${base}/chain/new/deep.txt`), `${base}/real/new/deep.txt`);
    assertEquals(realTargetSync(`${base}/dangling`), `${base}/real/future/file.txt`);
    assertEquals(realTargetSync(`${base}/nothing/here`), `${base}/nothing/here`);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("realTargetSync() fails on a symlink loop instead of spinning", async () => {
  const base = await Deno.realPath(await Deno.makeTempDir());
  try {
    await Deno.symlink(`${base}/b`, `${base}/a`);
    await Deno.symlink(`${base}/a`, `${base}/b`);
    assertThrows(() => realTargetSync(`${base}/a/x`));
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

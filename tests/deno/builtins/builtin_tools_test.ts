import { assert, assertEquals, assertStringIncludes, assertThrows } from "@std/assert";
import { ToolRouter } from "@toolroute/toolroute";
import { builtinTools } from "@toolroute/toolroute/deno";
import { makeFixture } from "./_fixture.ts";

Deno.test("builtinTools() offers the file tools, and bash only when the context turns it on", async () => {
  await using f = await makeFixture();
  await using off = builtinTools(f.context);
  assertEquals(off.names, ["apply_patch", "edit", "glob", "grep", "read_file", "write_file"]);
  const resolved = off.resolve(["read_file", "bash", "rm_rf"]);
  assertEquals(resolved.tools.map((t) => [t.name, t.source]), [["read_file", "builtin"]]);
  assertEquals(resolved.missing.map((m) => [m.selection, m.name]), [["builtins", "bash"], [
    "builtins",
    "rm_rf",
  ]]);
  assertStringIncludes(resolved.missing[0].reason, "bash is off");
  await using on = builtinTools({ ...f.context, bash: { sandbox: "none" } });
  assertEquals(on.names, [
    "apply_patch",
    "bash",
    "edit",
    "glob",
    "grep",
    "read_file",
    "write_file",
  ]);
  assertEquals(on.resolve(["bash"]).tools.map((t) => t.name), ["bash"]);
  assertEquals(off.resolve(["bash"], { ...f.context, bash: { sandbox: "none" } }).tools.length, 1);
});

Deno.test("builtinTools() gives each tool the fixed parameter names in its schema", async () => {
  await using f = await makeFixture();
  await using source = builtinTools(f.context);
  const schemas = Object.fromEntries(
    source.resolve(["read_file", "write_file", "apply_patch"]).tools.map((
      t,
    ) => [t.name, t.inputSchema]),
  );
  assertEquals(Object.keys(schemas.read_file.properties!), [
    "path",
    "startLine",
    "endLine",
    "maxChars",
  ]);
  assertEquals(schemas.read_file.required, ["path"]);
  assertEquals(Object.keys(schemas.write_file.properties!), ["path", "content", "mode"]);
  assertEquals(Object.keys(schemas.apply_patch.properties!), ["patch"]);
});

Deno.test("builtinTools() gives glob, grep and edit the parameter names of the issue", async () => {
  await using f = await makeFixture();
  await using source = builtinTools(f.context);
  const tools = source.resolve(["glob", "grep", "edit"]).tools;
  const schemas = Object.fromEntries(tools.map((t) => [t.name, t.inputSchema]));
  assertEquals(Object.keys(schemas.glob.properties!), [
    "pattern",
    "path",
    "maxResults",
    "includeIgnored",
  ]);
  assertEquals(schemas.glob.required, ["pattern"]);
  assertEquals(Object.keys(schemas.grep.properties!), [
    "pattern",
    "path",
    "glob",
    "ignoreCase",
    "maxResults",
    "includeIgnored",
  ]);
  assertEquals(schemas.grep.required, ["pattern"]);
  assertEquals(Object.keys(schemas.edit.properties!), [
    "path",
    "oldString",
    "newString",
    "replaceAll",
  ]);
  assertEquals(schemas.edit.required, ["path", "oldString", "newString"]);
  const hints = Object.fromEntries(tools.map((t) => [t.name, t.annotations?.readOnlyHint]));
  assertEquals(hints, { glob: true, grep: true, edit: false });
});

Deno.test("concurrent requests with two different workspaces never see each other's files", async () => {
  await using a = await makeFixture();
  await using b = await makeFixture();
  await Deno.writeTextFile(`${a.workspace}/who.txt`, "A\n");
  await Deno.writeTextFile(`${b.workspace}/who.txt`, "B\n");
  await using router = new ToolRouter({ builtins: builtinTools(a.context) });
  const names = ["read_file", "write_file"];
  const [toolsA, toolsB] = await Promise.all([
    router.expose({ builtins: names }),
    router.expose({ builtins: names, context: { workspace: b.workspace } }),
  ]);
  const calls = Array.from({ length: 40 }, async (_, i) => {
    const [tools, expected] = i % 2 === 0 ? [toolsA, "A\n"] : [toolsB, "B\n"];
    await tools.invoke("write_file", { path: `n${i}.txt`, content: expected });
    const read = JSON.parse(await tools.invoke("read_file", { path: "who.txt" }));
    assertEquals(read.content, expected);
  });
  await Promise.all(calls);
  for (let i = 0; i < 40; i++) {
    const home = i % 2 === 0 ? a.workspace : b.workspace;
    const other = i % 2 === 0 ? b.workspace : a.workspace;
    assertEquals(await Deno.readTextFile(`${home}/n${i}.txt`), i % 2 === 0 ? "A\n" : "B\n");
    await assertNotFound(`${other}/n${i}.txt`);
  }
  const crossed = await toolsB.call("read_file", { path: `${a.workspace}/who.txt` });
  assertEquals(crossed.code, "permission_denied");
});

Deno.test("builtinTools() throws for a malformed context, at start-up and per request", async () => {
  assertThrows(() => builtinTools({ workspace: "relative" }), TypeError);
  await using f = await makeFixture();
  await using router = new ToolRouter({ builtins: builtinTools(f.context) });
  let thrown: unknown;
  try {
    await router.expose({
      builtins: ["read_file"],
      context: { workspace: "/ws", readMaxChars: -1 },
    });
  } catch (error) {
    thrown = error;
  }
  assert(thrown instanceof RangeError);
});

Deno.test("builtinTools() in strict mode refuses to start when the process holds excess permissions", async () => {
  await using f = await makeFixture();
  // The test runner holds at least --allow-net and --allow-sys, which no context needs.
  const error = assertThrows(() => builtinTools(f.context, { strict: true }), TypeError);
  assertStringIncludes(error.message, "strict mode");
});

Deno.test("builtinTools() refuses to resolve after close()", async () => {
  await using f = await makeFixture();
  const source = builtinTools(f.context);
  await source.close();
  assertThrows(() => source.resolve(["read_file"]), TypeError, "closed");
});

async function assertNotFound(path: string): Promise<void> {
  try {
    await Deno.lstat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  throw new Error(`${path} should not exist`);
}

import { assertEquals, assertMatch } from "@std/assert";
import { ToolRouter } from "@toolroute/toolroute";
import { builtinTools } from "@toolroute/toolroute/deno";
import { makeFixture } from "./_fixture.ts";

Deno.test("path rules resolve against the real workspace: relative, ./ and absolute paths alike", async () => {
  await using fixture = await makeFixture();
  await Deno.writeTextFile(`${fixture.workspace}/.env`, "KEY=1\n");
  await using router = new ToolRouter({
    builtins: builtinTools(fixture.context),
    policy: { deny: ["read_file(.env)"], ask: ["write_file(src/**)"] },
  });
  const tools = await router.expose({ builtins: ["read_file", "write_file"] });
  for (const path of [".env", "./.env", `${fixture.workspace}/.env`, "src/../.env"]) {
    const result = await tools.call("read_file", { path });
    assertEquals(result.code, "permission_denied", path);
    assertMatch(result.text, /policy rule "read_file\(\.env\)"/);
  }
  assertEquals((await tools.call("read_file", { path: "hello.txt" })).isError, false);
  const asked = await tools.call("write_file", { path: "src/new.ts", content: "x\n" });
  assertEquals(asked.code, "approval_required");
  await Deno.stat(`${fixture.workspace}/src`).then(
    () => {
      throw new Error("the asked write ran");
    },
    () => {},
  );
  const written = await tools.approve(asked.approval!);
  assertEquals(written.isError, false, written.text);
  assertEquals(await Deno.readTextFile(`${fixture.workspace}/src/new.ts`), "x\n");
});

Deno.test("a request's own workspace is where its path rules resolve", async () => {
  await using fixture = await makeFixture();
  await using router = new ToolRouter({ builtins: builtinTools(fixture.context) });
  const other = `${fixture.base}/ws_evil`;
  const tools = await router.expose({
    builtins: ["read_file"],
    context: { workspace: other },
    policy: { deny: ["read_file(secret.txt)"] },
  });
  assertEquals((await tools.call("read_file", { path: "secret.txt" })).code, "permission_denied");
  assertEquals(
    (await tools.call("read_file", { path: `${other}/secret.txt` })).code,
    "permission_denied",
  );
});

Deno.test("callAll() with the real file tools: a read after a write sees the write", async () => {
  await using fixture = await makeFixture();
  await using router = new ToolRouter({ builtins: builtinTools(fixture.context) });
  const tools = await router.expose({ builtins: ["read_file", "write_file"] });
  const results = await tools.callAll([
    { name: "read_file", arguments: { path: "hello.txt" }, id: "r1" },
    {
      name: "write_file",
      arguments: { path: "hello.txt", content: "changed\n", mode: "overwrite" },
    },
    { name: "read_file", arguments: { path: "hello.txt" }, id: "r2" },
  ]);
  assertEquals(JSON.parse(results[0].text).content, "hello\nworld\n");
  assertEquals(results[1].isError, false, results[1].text);
  assertEquals(JSON.parse(results[2].text).content, "changed\n");
  assertEquals([results[0].id, results[1].id, results[2].id], ["r1", undefined, "r2"]);
});

// Built-in results a budget cut are kept sealed in the workspace's .toolroute/results: the model's
// own tools can reach that folder, so what they find there must be useless to them.
import { assert, assertEquals, assertFalse, assertMatch } from "@std/assert";
import { ToolRouter } from "@toolroute/toolroute";
import { builtinTools, FileResultStore } from "@toolroute/toolroute/deno";
import { makeFixture } from "../builtins/_fixture.ts";

const MARKER = "PLAINTEXT-MARKER-51c2";

async function readWhole(
  call: (
    args: Record<string, unknown>,
  ) => Promise<{ content: unknown[]; structuredContent?: unknown; isError: boolean; text: string }>,
  handle: string,
): Promise<string> {
  let text = "";
  let offset: number | undefined = 0;
  while (offset !== undefined) {
    const page = await call({ handle, offset });
    assertFalse(page.isError, page.text);
    text += (page.content[0] as { text: string }).text;
    offset = (page.structuredContent as { nextOffset?: number }).nextOffset;
  }
  return text;
}

Deno.test("a cut built-in result is kept sealed in the workspace's cache folder and read back exactly", async () => {
  await using fixture = await makeFixture();
  const body = Array.from({ length: 300 }, (_, i) => `${MARKER} line ${i} ünïcödé 🦕`).join("\n");
  await Deno.writeTextFile(`${fixture.workspace}/big.txt`, body);
  const plain = new ToolRouter({ builtins: builtinTools(fixture.context) });
  const whole = await (await plain.expose({ builtins: ["read_file"] })).call("read_file", {
    path: "big.txt",
  });
  await plain.close();
  await using router = new ToolRouter({
    builtins: builtinTools(fixture.context),
    resultBudget: { sources: { builtin: 300 } },
  });
  const tools = await router.expose({ builtins: ["read_file"], userId: "alice" });
  const cut = await tools.call("read_file", { path: "big.txt" });
  assertMatch(cut.resultHandle ?? "", /^res_b[0-9a-f]{32}$/);
  const files = [...Deno.readDirSync(`${fixture.workspace}/.toolroute/results`)].map((e) => e.name);
  assert(files.includes(`${cut.resultHandle}.data`) && files.includes(`${cut.resultHandle}.info`));
  assert(files.includes(".gitignore"));
  // The model reads the stored file with its own tool: the read reaches the file, which is not
  // even text, and the bytes there hold none of the result.
  const peek = await tools.call("read_file", {
    path: `.toolroute/results/${cut.resultHandle}.data`,
  });
  assertMatch(peek.text, /not a text file/);
  const raw = await Deno.readFile(
    `${fixture.workspace}/.toolroute/results/${cut.resultHandle}.data`,
  );
  assert(raw.length > body.length / 2, "the stored file holds the whole result");
  assertFalse(new TextDecoder().decode(raw).includes(MARKER));
  assertFalse(peek.text.includes(MARKER));
  const read = (args: Record<string, unknown>) => tools.call("read_result", args);
  assertEquals(await readWhole(read, cut.resultHandle!), whole.text);
});

Deno.test("a rewritten or swapped stored file reads as gone", async () => {
  await using fixture = await makeFixture();
  const store = new FileResultStore(`${fixture.workspace}/.toolroute/results`, {
    root: fixture.workspace,
  });
  const bytes = new TextEncoder().encode("alice's result");
  const alice = { userId: "alice", scope: "s", tool: "t", bytes: bytes.length, pageBytes: 100 };
  const bob = { ...alice, userId: "bob" };
  const a = "res_b" + "a".repeat(32);
  const b = "res_b" + "b".repeat(32);
  await store.put(a, bytes, alice, { expireIn: 60_000 });
  await store.put(b, new TextEncoder().encode("bob's result!!"), bob, { expireIn: 60_000 });
  assertEquals((await store.info(a))?.userId, "alice");
  // Bob (through a model's write tool) puts his info file where Alice's was, to own her result.
  const dir = `${fixture.workspace}/.toolroute/results`;
  await Deno.copyFile(`${dir}/${b}.info`, `${dir}/${a}.info`);
  assertEquals(await store.info(a), undefined);
  // Bob's data under Alice's name, and a flipped byte: gone too.
  await Deno.copyFile(`${dir}/${b}.data`, `${dir}/${a}.data`);
  assertEquals(await store.read(a, 0, 5), undefined);
  const data = await Deno.readFile(`${dir}/${b}.data`);
  data[data.length - 1] ^= 1;
  await Deno.writeFile(`${dir}/${b}.data`, data);
  assertEquals(await store.read(b, 0, 5), undefined);
});

Deno.test("a link planted where the result folder was gets no write; the router's store keeps the result", async () => {
  await using fixture = await makeFixture();
  await Deno.writeTextFile(`${fixture.workspace}/big.txt`, "x".repeat(8000));
  await Deno.mkdir(`${fixture.workspace}/.toolroute`);
  // The model's tools planted a link: the folder would lead outside the workspace.
  await Deno.symlink(fixture.outside, `${fixture.workspace}/.toolroute/results`);
  await Deno.writeTextFile(`${fixture.outside}/res_b${"c".repeat(32)}.info`, "a victim's file");
  await using router = new ToolRouter({
    builtins: builtinTools(fixture.context),
    resultBudget: { tokens: 200 },
  });
  const tools = await router.expose({ builtins: ["read_file"] });
  const cut = await tools.call("read_file", { path: "big.txt" });
  assertMatch(cut.resultHandle ?? "", /^res_r/);
  const outside = [...Deno.readDirSync(fixture.outside)].map((e) => e.name).sort();
  assertEquals(outside, [`res_b${"c".repeat(32)}.info`, "secret.txt"]);
  assertMatch(
    (await tools.call("read_result", { handle: cut.resultHandle })).text,
    /^\{"path":"big.txt","content":"x+/,
  );
});

import { assertEquals, assertStringIncludes } from "@std/assert";
import * as entry from "../../../src/deno/cli/mod.ts";
import { HELP_TEXT } from "../../../src/deno/cli/help_text.ts";
import { CLI } from "./_serve_process.ts";

// The public surface of "@toolroute/toolroute/cli". Adding or removing an export must update
// these lists (and the README): that is the point of this test.
const VALUES = { runCli: "function", toolrouteJsonSchema: "function", UsageError: "function" };
const TYPES = ["CliIo"];

async function documentedNames(path: string): Promise<string[]> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["doc", "--json", path],
    stdin: "null",
  }).output();
  if (code !== 0) throw new Error(new TextDecoder().decode(stderr));
  const doc = JSON.parse(new TextDecoder().decode(stdout));
  const node = Object.values(doc.nodes)[0] as { symbols: { name: string }[] };
  return node.symbols.map((symbol) => symbol.name).sort();
}

/** Runs the entry as a program with no permission at all. */
async function runEntry(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", CLI, ...args],
    cwd: "/",
    stdin: "null",
  }).output();
  const decoder = new TextDecoder();
  return { code, out: decoder.decode(stdout), err: decoder.decode(stderr) };
}

Deno.test("src/deno/cli/mod.ts exports exactly runCli, toolrouteJsonSchema and UsageError", () => {
  assertEquals(Object.keys(entry).sort(), Object.keys(VALUES).sort());
  for (const [name, kind] of Object.entries(VALUES)) {
    assertEquals(typeof entry[name as keyof typeof entry], kind, name);
  }
  assertEquals(new entry.UsageError("x") instanceof Error, true);
  assertEquals(new entry.UsageError("x").name, "UsageError");
});

Deno.test("src/deno/cli/mod.ts exports exactly the public values and types (deno doc)", async () => {
  assertEquals(await documentedNames(CLI), [...Object.keys(VALUES), ...TYPES].sort());
});

Deno.test("src/deno/cli/mod.ts run as a program exits with runCli's code", async () => {
  const [version, bare, misuse] = await Promise.all([
    runEntry(["--version"]),
    runEntry([]),
    runEntry(["launch"]),
  ]);
  assertEquals(version, { code: 0, out: "toolroute 0.1.0\n", err: "" });
  assertEquals(bare.code, 2);
  assertEquals(bare.out, HELP_TEXT[""] + "\n");
  assertEquals(misuse.code, 2);
  assertStringIncludes(misuse.err, 'toolroute: Unknown command "launch"');
});

Deno.test("src/deno/cli/mod.ts prints a workspace's flags without any permission", async () => {
  const { code, out } = await runEntry(["flags", "--workspace", "/srv/toolroute-ws"]);
  assertEquals(code, 0);
  assertEquals(
    out,
    "--allow-read=/srv/toolroute-ws --allow-write=/srv/toolroute-ws --no-prompt\n",
  );
});

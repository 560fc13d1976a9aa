/**
 * The portable core proves it is web-standard three ways: the module graph from `mod.ts` holds no
 * `node:` specifier and no file under `src/deno/`; the core sources never name `Deno.`, `process`
 * or `node:`; and `deno task test:core` runs the core suite with no permission at all.
 */
import { assert, assertEquals } from "@std/assert";
import { walk } from "@std/fs";
import { join, relative } from "@std/path";

const fromFileUrl = (url: string | URL): string => decodeURIComponent(new URL(url).pathname);

const root = fromFileUrl(new URL("../", import.meta.url));

interface GraphModule {
  specifier: string;
  kind?: string;
}

async function moduleGraph(entry: string): Promise<GraphModule[]> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert(output.success, new TextDecoder().decode(output.stderr));
  const info = JSON.parse(new TextDecoder().decode(output.stdout));
  const npm = Object.values(info.npmPackages ?? {}) as { name: string }[];
  return [
    ...(info.modules as GraphModule[]),
    ...npm.map((p) => ({ specifier: `npm:${p.name}` })),
  ];
}

Deno.test("mod.ts reaches no node: module and no file under src/deno", async () => {
  const modules = await moduleGraph("mod.ts");
  const local = modules.filter((m) => m.specifier.startsWith("file:"));
  assert(local.length > 10, "the graph lists the core's files");
  const offending = modules.filter((m) =>
    m.specifier.startsWith("node:") ||
    (m.specifier.startsWith("file:") &&
      relative(root, fromFileUrl(m.specifier)).startsWith("src/deno/"))
  );
  assertEquals(offending.map((m) => m.specifier), []);
});

Deno.test("mod.ts reaches no MCP SDK: the gateway, OAuth and serving are the ./mcp entry's", async () => {
  const sdk = (m: GraphModule) =>
    m.specifier.includes("@modelcontextprotocol/") || m.specifier.endsWith("/mcp_sdk.ts");
  // The check sees the SDK where it is: the MCP entry reaches the one module that imports it.
  const mcp = await moduleGraph("src/core/mcp/mod.ts");
  assert(mcp.some((m) => m.specifier.endsWith("/src/core/mcp/mcp_sdk.ts")), "./mcp has the SDK");
  assertEquals(
    mcp.filter((m) =>
      m.specifier.startsWith("node:") ||
      (m.specifier.startsWith("file:") &&
        relative(root, fromFileUrl(m.specifier)).startsWith("src/deno/"))
    ).map((m) => m.specifier),
    [],
  );
  // Type-only imports of the SDK's protocol types (mcp_sdk_types.ts) bundle nothing.
  const code = (await moduleGraph("mod.ts")).filter((m) => m.specifier.startsWith("file:"));
  assertEquals(code.filter(sdk).map((m) => m.specifier), []);
});

Deno.test("the core sources never name Deno, process or node: modules", async () => {
  const pattern =
    /\bDeno\.|(?<![\w-])process\.(?:env|exit|argv|cwd|platform|on|std|pid|kill|version)|from\s+["']node:|import\(["']node:|require\(/;
  const offending: string[] = [];
  for await (
    const { path } of walk(join(root, "src/core"), { includeDirs: false, exts: [".ts"] })
  ) {
    const lines = (await Deno.readTextFile(path)).split("\n");
    lines.forEach((line, i) => {
      const code = line.replace(/\/\*.*?\*\/|\/\/.*$/g, "");
      if (!/^\s*\*/.test(code) && pattern.test(code)) {
        offending.push(`${relative(root, path)}:${i + 1}`);
      }
    });
  }
  const mod = await Deno.readTextFile(join(root, "mod.ts"));
  assert(!/from\s+["']\.\/src\/deno\//.test(mod), "mod.ts exports nothing from src/deno");
  assertEquals(offending, []);
});

Deno.test("the core test task runs with no permission flags", async () => {
  const config = JSON.parse(await Deno.readTextFile(join(root, "deno.json")));
  const task: string = config.tasks["test:core"];
  assert(task.startsWith("deno test --no-prompt"), task);
  assert(!/--allow-|\s-A\b/.test(task), `the core task must not grant permissions: ${task}`);
});

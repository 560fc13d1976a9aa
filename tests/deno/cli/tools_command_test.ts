import { assertEquals, assertMatch, assertRejects, assertStringIncludes } from "@std/assert";
import { toolsCommand } from "../../../src/deno/cli/tools_command.ts";
import { UsageError } from "../../../src/deno/cli/usage_error.ts";
import { makeFixture } from "./_serve_process.ts";

const REPO_MOD = new URL("../../../mod.ts", import.meta.url).href;
const REPO = new URL("../../../", import.meta.url).pathname;
const FIXTURE = `${REPO}tests/_fixtures/stdio_server.ts`;

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: { out: (line: string) => out.push(line), err: (l: string) => err.push(l) },
  };
}

Deno.test("toolsCommand() prints an aligned table of the exposed tools, no trailing spaces", async () => {
  await using fixture = await makeFixture({ bash: { sandbox: "none" } });
  const { out, err, io } = capture();
  assertEquals(await toolsCommand({ config: fixture.config }, io), 0);
  assertEquals(out, [
    "NAME         SOURCE   SHADOWED-BY",
    "apply_patch  builtin  -",
    "bash         builtin  -",
    "edit         builtin  -",
    "glob         builtin  -",
    "grep         builtin  -",
    "read_file    builtin  -",
    "write_file   builtin  -",
  ]);
  assertEquals(err, []);
});

Deno.test("toolsCommand() --json prints tools in MCP form, shadowed and missing names", async () => {
  await using fixture = await makeFixture({
    modules: ["tools.ts"],
    expose: { builtins: ["read_file"], functions: ["read_file", "ghost"] },
  });
  await Deno.writeTextFile(
    `${fixture.dir}/tools.ts`,
    `import { defineTool } from "${REPO_MOD}";
import { z } from "zod";
export const mine = defineTool({
  name: "read_file", description: "Loses to the built-in", input: z.object({}), run: () => "x",
});
`,
  );
  const { out, err, io } = capture();
  assertEquals(await toolsCommand({ config: fixture.config, json: true }, io), 0);
  assertEquals(out.length, 1, "one JSON document");
  const json = JSON.parse(out[0]);
  assertEquals(Object.keys(json), ["tools", "shadowed", "missing"]);
  assertEquals(json.tools.map((tool: { name: string }) => tool.name), ["read_file"]);
  assertEquals(typeof json.tools[0].inputSchema, "object");
  assertEquals(json.shadowed, [{ name: "read_file", winner: "builtin", hidden: ["function"] }]);
  assertEquals(json.missing.map((m: { name: string }) => m.name), ["ghost"]);
  assertEquals(err, [], "JSON mode keeps stderr quiet");
});

Deno.test("toolsCommand() sends names nothing provides to stderr with the toolroute prefix", async () => {
  await using fixture = await makeFixture({ expose: { builtins: ["read_file", "bash"] } });
  const { out, err, io } = capture();
  assertEquals(await toolsCommand({ config: fixture.config }, io), 0);
  assertEquals(out, ["NAME       SOURCE   SHADOWED-BY", "read_file  builtin  -"]);
  assertEquals(err.length, 1);
  assertEquals(err[0].startsWith('toolroute: not exposed: builtins "bash": '), true, err[0]);
});

Deno.test("toolsCommand() --user of an unknown user throws a UsageError", async () => {
  await using fixture = await makeFixture();
  const { out, io } = capture();
  await assertRejects(
    () => toolsCommand({ config: fixture.config, user: "eve" }, io),
    UsageError,
    `Unknown user "eve"; the config's users are: none`,
  );
  assertEquals(out, []);
});

// A port nothing listens on: a remote server there is refused at once.
function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

Deno.test("toolsCommand() exits 1 when every configured MCP server is unreachable, still printing the rest", async () => {
  const port = closedPort();
  await using fixture = await makeFixture({
    expose: { builtins: ["read_file"] },
    mcpServers: {
      api: { url: `http://127.0.0.1:${port}/mcp` },
      docs: { url: `http://127.0.0.1:${port}/other` },
    },
  });
  for (const json of [false, true]) {
    const { out, err, io } = capture();
    const flags: Record<string, string | true> = json
      ? { config: fixture.config, json: true }
      : { config: fixture.config };
    assertEquals(await toolsCommand(flags, io), 1, err.join("\n"));
    // Both servers were tried and failed (their reasons are given), and the built-in is listed.
    const missing = json ? JSON.parse(out[0]).missing : [];
    const told = json ? missing.map((m: { name: string }) => m.name).sort() : err.join("\n");
    if (json) assertEquals(told, ["api", "docs"]);
    else {
      assertStringIncludes(told, 'not exposed: mcpServers "api"');
      assertStringIncludes(told, 'not exposed: mcpServers "docs"');
      assertStringIncludes(told, "none of the 2 configured MCP servers could be reached");
      assertStringIncludes(out.join("\n"), "read_file");
    }
  }
});

Deno.test("toolsCommand() exits 0 when one configured MCP server answers and another does not", async () => {
  const port = closedPort();
  await using fixture = await makeFixture({
    expose: { builtins: ["read_file"] },
    mcpServers: {
      local: {
        command: Deno.execPath(),
        args: ["run", "--no-prompt", "--config", `${REPO}deno.json`, FIXTURE],
        sandbox: "none",
      },
      api: { url: `http://127.0.0.1:${port}/mcp` },
    },
  });
  const { out, err, io } = capture();
  assertEquals(await toolsCommand({ config: fixture.config }, io), 0, err.join("\n"));
  assertMatch(out.join("\n"), /^echo +global_mcp/m);
  assertStringIncludes(err.join("\n"), 'not exposed: mcpServers "api"');
});

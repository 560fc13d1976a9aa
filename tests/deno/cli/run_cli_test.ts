import { assertEquals, assertMatch, assertStringIncludes } from "@std/assert";
import { cli, makeFixture } from "./_serve_process.ts";

const REPO_MOD = new URL("../../../mod.ts", import.meta.url).href;

Deno.test("runCli() prints help for the program and every command", async () => {
  for (const command of ["serve", "tools", "call", "flags"]) {
    const { code, out } = await cli([command, "--help"]);
    assertEquals(code, 0);
    assertStringIncludes(out, `Usage: toolroute ${command}`);
  }
  const { code, out } = await cli(["--help"]);
  assertEquals(code, 0);
  assertStringIncludes(out, "Commands:");
  assertEquals((await cli([])).code, 2);
});

Deno.test("runCli() exits 2 with a clear message for misuse, never a stack trace", async () => {
  const cases: [string[], RegExp][] = [
    [["launch"], /Unknown command "launch"/],
    [["tools", "--verbose"], /Unknown flag "--verbose" for "toolroute tools"/],
    [["tools", "--config", "/nonexistent/toolroute.json"], /the file does not exist/],
    [["call"], /Missing the tool name/],
    [["call", "a", "{}", "extra"], /Too many arguments/],
    [["serve", "--stdio", "--http"], /either "--stdio" or "--http"/],
    [["flags", "--http", "nowhere"], /Invalid --http address/],
    [["tools", "stray"], /Unexpected argument "stray"/],
  ];
  for (const [args, message] of cases) {
    const { code, err } = await cli(args);
    assertEquals(code, 2, args.join(" "));
    assertMatch(err, message);
    assertEquals(err.includes("    at "), false);
  }
});

Deno.test("runCli() tools prints the table with shadowed names, and JSON", async () => {
  await using fixture = await makeFixture({ modules: ["tools.ts"] });
  await Deno.writeTextFile(
    `${fixture.dir}/tools.ts`,
    `import { defineTool } from "${REPO_MOD}";
import { z } from "zod";
export const readFile = defineTool({
  name: "read_file", description: "Shadowed by the built-in", input: z.object({}), run: () => "x",
});
export const now = defineTool({ name: "now", description: "Now", input: z.object({}), run: () => 1 });
`,
  );
  const table = await cli(["tools", "--config", fixture.config]);
  assertEquals(table.code, 0);
  assertEquals(table.out.split("\n"), [
    "NAME         SOURCE    SHADOWED-BY",
    "apply_patch  builtin   -",
    "edit         builtin   -",
    "glob         builtin   -",
    "grep         builtin   -",
    "now          function  -",
    "read_file    builtin   -",
    "write_file   builtin   -",
    "read_file    function  builtin",
  ]);
  const json = JSON.parse((await cli(["tools", "--config", fixture.config, "--json"])).out);
  assertEquals(json.shadowed, [{ name: "read_file", winner: "builtin", hidden: ["function"] }]);
  assertEquals(json.tools.length, 7);
});

Deno.test("runCli() tools reports names the config exposes but nothing provides", async () => {
  await using fixture = await makeFixture({ expose: { builtins: ["bash"], functions: ["ghost"] } });
  const { code, out, err } = await cli(["tools", "--config", fixture.config]);
  assertEquals(code, 0);
  assertEquals(out, "NAME  SOURCE  SHADOWED-BY");
  assertMatch(err, /not exposed: builtins "bash"/);
  assertMatch(err, /not exposed: functions "ghost"/);
});

Deno.test("runCli() call exits 0 for a result, 1 for an error result, 2 for misuse", async () => {
  await using fixture = await makeFixture({ users: { TOKEN_A: { id: "alice" } } });
  const ok = await cli(["call", "read_file", '{"path":"hello.txt"}', "--config", fixture.config]);
  assertEquals(ok.code, 0);
  assertEquals(JSON.parse(ok.out).content, "hello from the workspace\n");
  const failed = await cli([
    "call",
    "read_file",
    '{"path":"/etc/passwd"}',
    "--config",
    fixture.config,
  ]);
  assertEquals(failed.code, 1);
  assertMatch(failed.out, /outside allowed roots/);
  const invalid = await cli(["call", "read_file", "not json", "--config", fixture.config]);
  assertEquals(invalid.code, 1);
  const unexposed = await cli(["call", "bash", '{"command":"id"}', "--config", fixture.config]);
  assertEquals(unexposed.code, 1);
  assertMatch(unexposed.out, /Unknown tool "bash"/);
  const user = await cli(["call", "read_file", "{}", "--config", fixture.config, "--user", "bob"]);
  assertEquals(user.code, 2);
  assertMatch(user.err, /Unknown user "bob"; the config's users are: "alice"/);
  const timeout = await cli(["call", "read_file", "{}", "--timeout", "-5"]);
  assertEquals(timeout.code, 2);
});

Deno.test("runCli() flags prints the least-privilege flags of a config", async () => {
  await using fixture = await makeFixture({
    readOnlyRoots: ["/usr/share"],
    bash: { sandbox: "bwrap", env: ["PATH"] },
    mcpServers: {
      remote: {
        url: "http://127.0.0.1:9000/mcp",
        headers: { authorization: "Bearer ${REMOTE_TOKEN}" },
      },
    },
  });
  const { code, out } = await cli([
    "flags",
    "--config",
    fixture.config,
    "--http",
    "127.0.0.1:8787",
  ]);
  assertEquals(code, 0);
  assertEquals(out.split(" "), [
    `--allow-read=${fixture.workspace},/usr/share,${fixture.config},${lockBeside(fixture.config)},${
      namesBeside(fixture.config)
    }`,
    `--allow-write=${fixture.workspace},${lockBeside(fixture.config)},${
      namesBeside(fixture.config)
    }`,
    "--allow-run=bash,bwrap",
    "--allow-env=PATH,REMOTE_TOKEN,TOOLROUTE_TOKEN",
    "--allow-net=127.0.0.1:8787,127.0.0.1:9000",
    "--no-prompt",
  ]);
});

Deno.test("runCli() flags --http alone means serve's default address, as docs/cli.md writes it", async () => {
  await using fixture = await makeFixture();
  const config = ["--config", fixture.config];
  const alone = await cli(["flags", ...config, "--http"]);
  assertEquals(alone.code, 0, alone.err);
  const explicit = await cli(["flags", ...config, "--http", "127.0.0.1:8787"]);
  assertEquals(alone.out, explicit.out);
  assertStringIncludes(alone.out, "--allow-env=TOOLROUTE_TOKEN");
  assertStringIncludes(alone.out, "--allow-net=127.0.0.1:8787");
  // Followed by another flag, it is still the default address.
  const explained = await cli(["flags", ...config, "--http", "--explain"]);
  assertEquals(explained.code, 0, explained.err);
  assertEquals(explained.out.split("\n")[0], explicit.out);
});

Deno.test("runCli() call cannot rewrite the config that lives in the workspace", async () => {
  await using fixture = await makeFixture();
  await Deno.writeTextFile(`${fixture.workspace}/toolroute.json`, '{ "bash": false }');
  const config = `${fixture.workspace}/toolroute.json`;
  const refused = await cli([
    "call",
    "write_file",
    JSON.stringify({ path: "toolroute.json", content: '{ "bash": { "sandbox": "none" } }' }),
    "--config",
    config,
  ]);
  assertEquals(refused.code, 1);
  assertMatch(refused.out, /toolroute.json/);
  assertEquals(await Deno.readTextFile(config), '{ "bash": false }');
});

/** The tool lock file beside a config: read too when the config has remote servers. */
function lockBeside(config: string): string {
  return config.replace(/[^/]+$/, "toolroute.lock");
}

Deno.test("runCli() exits 2 for --workspace / unless the config allows broad roots", async () => {
  const refused = await cli(["tools", "--workspace", "/"]);
  assertEquals(refused.code, 2);
  assertStringIncludes(refused.err, "too broad to write");
});

/** The last known tool lists beside a config (read and written with remote servers). */
function namesBeside(config: string): string {
  return config.replace(/[^/]+$/, "toolroute.names.json");
}

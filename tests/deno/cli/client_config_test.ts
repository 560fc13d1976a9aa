/**
 * Other MCP clients' config files, read as they are written, from real files: Claude Desktop's
 * `mcpServers`, Cursor's `${env:NAME}`, VS Code's `.vscode/mcp.json` (`servers`, `inputs`,
 * `${workspaceFolder}`, `${input:…}`); no config at all; and `toolroute init`.
 *
 * @module
 */

import { assert, assertEquals, assertRejects, assertStringIncludes } from "@std/assert";
import { ensureDir } from "@std/fs";
import { join } from "@std/path";
import { Validator } from "@cfworker/json-schema";
import { loadConfig } from "../../../src/deno/cli/load_config.ts";
import { runCli } from "../../../src/deno/cli/run_cli.ts";
import { parseJsonc } from "../../../src/deno/cli/parse_jsonc.ts";
import { UsageError } from "../../../src/deno/cli/usage_error.ts";
import { configSchemaText } from "../../../src/deno/cli/write_config_schema.ts";

const REPO = new URL("../../..", import.meta.url).pathname;
const FIXTURE = `${REPO}tests/_fixtures/stdio_server.ts`;
/** The stdio fixture as a client's config starts it. */
const FIXTURE_SERVER = {
  command: Deno.execPath(),
  args: ["run", "--no-prompt", "--allow-env", "--config", `${REPO}deno.json`, FIXTURE],
};

async function tempDir(): Promise<string & AsyncDisposable> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_clients_" }));
  return Object.assign(new String(dir) as unknown as string, {
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  });
}

async function writeJson(path: string, value: unknown): Promise<string> {
  await ensureDir(join(path, ".."));
  await Deno.writeTextFile(path, JSON.stringify(value, null, 2));
  return path;
}

async function cli(args: string[], ask?: (question: string) => Promise<string | null>) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, {
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    ...(ask ? { ask } : {}),
  });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

/** Runs `fn` with the current directory set to `dir`. */
async function inDir<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const before = Deno.cwd();
  Deno.chdir(dir);
  try {
    return await fn();
  } finally {
    Deno.chdir(before);
  }
}

Deno.test("Claude Desktop's claude_desktop_config.json serves its stdio server as it is", async () => {
  await using dir = await tempDir();
  const path = await writeJson(join(`${dir}`, "claude_desktop_config.json"), {
    mcpServers: { fixture: FIXTURE_SERVER },
    globalShortcut: "Ctrl+Space",
  });
  const { code, out, err } = await cli(["call", "--config", path, "echo", '{"text":"hi"}']);
  assertEquals(code, 0, err);
  assertEquals(out, "hi");
});

Deno.test("Cursor's ${env:NAME} is expanded like ${NAME}, and an unset one is named", async () => {
  await using dir = await tempDir();
  const path = await writeJson(join(`${dir}`, ".cursor", "mcp.json"), {
    mcpServers: {
      search: {
        url: "http://127.0.0.1:9/mcp",
        headers: { Authorization: "Bearer ${env:SEARCH_TOKEN}" },
      },
      local: { ...FIXTURE_SERVER, env: { API_KEY: "${env:SEARCH_TOKEN}" } },
    },
  });
  const config = await loadConfig(path, { env: { SEARCH_TOKEN: "tok-0123456789" } });
  // Sent as the token itself, not as the text "${env:SEARCH_TOKEN}".
  assertEquals(config.mcpServers.search, {
    url: "http://127.0.0.1:9/mcp",
    headers: { Authorization: "Bearer tok-0123456789" },
  });
  assertEquals(config.variables, ["SEARCH_TOKEN"]);
  const local = config.mcpServers.local as { env: Record<string, string>; secretEnv: string[] };
  assertEquals(local.env.API_KEY, "tok-0123456789");
  assertEquals(local.secretEnv, ["API_KEY"]);
  const error = await assertRejects(() => loadConfig(path, { env: {} }), UsageError);
  assertStringIncludes(error.message, '"SEARCH_TOKEN" (used at mcpServers.search.headers');
});

Deno.test("VS Code's .vscode/mcp.json: servers, ${workspaceFolder} and an ${input:…} asked once", async () => {
  await using dir = await tempDir();
  const path = await writeJson(join(`${dir}`, ".vscode", "mcp.json"), {
    inputs: [
      { type: "promptString", id: "api-key", description: "Fixture API key", password: true },
    ],
    servers: {
      fixture: {
        type: "stdio",
        ...FIXTURE_SERVER,
        cwd: "${workspaceFolder}",
        env: { ROOT: "${workspaceFolder}", API_KEY: "${input:api-key}", AGAIN: "${input:api-key}" },
      },
    },
  });
  const questions: string[] = [];
  const ask = (question: string) => (questions.push(question), Promise.resolve("key-0123456789"));
  const config = await loadConfig(path, { ask });
  assertEquals(questions, ['toolroute: input "api-key" (Fixture API key): ']);
  const server = config.mcpServers.fixture as {
    cwd: string;
    env: Record<string, string>;
    secretEnv: string[];
  };
  // The workspace folder is the one holding .vscode, not .vscode itself.
  assertEquals(server.cwd, `${dir}`);
  assertEquals(server.env, { ROOT: `${dir}`, API_KEY: "key-0123456789", AGAIN: "key-0123456789" });
  assertEquals(server.secretEnv.sort(), ["AGAIN", "API_KEY"]);

  // End to end: the server starts with those values; the input's value stays a secret.
  const root = await cli(["call", "--config", path, "env", '{"name":"ROOT"}'], ask);
  assertEquals(root.code, 0, root.err);
  assertEquals(root.out, `${dir}`);
  const key = await cli(["call", "--config", path, "env", '{"name":"API_KEY"}'], ask);
  assertEquals(key.out, "[redacted]");
});

Deno.test("VS Code's ${input:…} answers in args are secrets: a server echoing its argv shows them redacted", async () => {
  await using dir = await tempDir();
  const path = await writeJson(join(`${dir}`, ".vscode", "mcp.json"), {
    inputs: [
      { type: "promptString", id: "db-password", description: "Database password", password: true },
    ],
    servers: {
      fixture: {
        ...FIXTURE_SERVER,
        args: [...FIXTURE_SERVER.args, "--password=${input:db-password}", "${input:db-password}"],
      },
    },
  });
  const answer = "pw-0123456789-secret";
  const ask = () => Promise.resolve(answer);
  const config = await loadConfig(path, { ask });
  const server = config.mcpServers.fixture as { args: string[]; secretArgs: number[] };
  const last = FIXTURE_SERVER.args.length;
  assertEquals(server.args.slice(last), [`--password=${answer}`, answer]);
  assertEquals(server.secretArgs.sort(), [last, last + 1]);
  // The server really got both arguments and echoed them (the answer is what was redacted) ...
  const argv = await cli(["call", "--config", path, "argv", "{}"], ask);
  assertEquals(argv.code, 0, argv.err);
  assertEquals(argv.out, "[redacted] [redacted]");
  // ... and the answer itself is never shown.
  assert(!argv.out.includes(answer) && !argv.err.includes(answer), argv.out);
});

Deno.test("VS Code's ${input:…} where nobody can be asked is refused, naming the input and its use", async () => {
  await using dir = await tempDir();
  const path = await writeJson(join(`${dir}`, ".vscode", "mcp.json"), {
    inputs: [{ type: "promptString", id: "api-key", description: "Fixture API key" }],
    servers: { fixture: { ...FIXTURE_SERVER, env: { API_KEY: "${input:api-key}" } } },
  });
  const { code, err } = await cli(["tools", "--config", path]);
  assertEquals(code, 2);
  assertStringIncludes(err, 'asks for input "api-key" (Fixture API key)');
  assertStringIncludes(err, "used at servers.fixture.env.API_KEY");
  assertStringIncludes(err, "${env:NAME}");
  const unknown = await writeJson(join(`${dir}`, "other", ".vscode", "mcp.json"), {
    servers: { fixture: { ...FIXTURE_SERVER, env: { API_KEY: "${input:nowhere}" } } },
  });
  const missing = await cli(["tools", "--config", unknown], () => Promise.resolve("x"));
  assertEquals(missing.code, 2);
  assertStringIncludes(missing.err, 'has no entry with id "nowhere"');
  // `flags` lists permissions without asking.
  const flags = await cli(["flags", "--config", path]);
  assertEquals(flags.code, 0, flags.err);
});

Deno.test("no config in the folder is a clear message with the next step, naming a client config found there", async () => {
  await using dir = await tempDir();
  await inDir(`${dir}`, async () => {
    const none = await cli(["tools"]);
    assertEquals(none.code, 2);
    assertStringIncludes(none.err, "No config: there is no toolroute.json in this folder");
    assertStringIncludes(none.err, 'Run "toolroute init"');
    await writeJson(join(`${dir}`, ".cursor", "mcp.json"), { mcpServers: {} });
    const hinted = await cli(["serve"]);
    assertEquals(hinted.code, 2);
    assertStringIncludes(
      hinted.err,
      `".cursor/mcp.json" is an MCP client's config: use it as it is with --config .cursor/mcp.json`,
    );
    await writeJson(join(`${dir}`, ".vscode", "mcp.json"), { servers: {} });
    const two = await cli(["tools"]);
    assertEquals(two.code, 2);
    assertStringIncludes(
      two.err,
      `".vscode/mcp.json", ".cursor/mcp.json" are MCP clients' configs: use one as it is, ` +
        "e.g. --config .vscode/mcp.json",
    );
  });
});

Deno.test("toolroute init writes a starter toolroute.json whose $schema resolves offline, and never overwrites", async () => {
  await using dir = await tempDir();
  await inDir(`${dir}`, async () => {
    const first = await cli(["init"]);
    assertEquals(first.code, 0, first.err);
    assertStringIncludes(first.out, `Wrote ${dir}/toolroute.json`);
    const text = await Deno.readTextFile(join(`${dir}`, "toolroute.json"));
    const value = parseJsonc(text) as Record<string, unknown>;
    // The $schema is a relative path to a file written beside it: editors need no network.
    const schemaPath = join(`${dir}`, value.$schema as string);
    const schema = await Deno.readTextFile(schemaPath);
    assertEquals(schema, configSchemaText());
    const result = new Validator(JSON.parse(schema), "2020-12").validate(value);
    assert(result.valid, JSON.stringify(result.errors));
    // It loads and serves the file tools of its folder.
    const tools = await cli(["tools", "--json"]);
    assertEquals(tools.code, 0, tools.err);
    const names = (JSON.parse(tools.out).tools as { name: string }[]).map((tool) => tool.name);
    assert(names.includes("read_file") && !names.includes("bash"), names.join());
    await Deno.writeTextFile(join(`${dir}`, "toolroute.json"), text + "\n// mine\n");
    const again = await cli(["init"]);
    assertEquals(again.code, 2);
    assertStringIncludes(again.err, "already exists");
    assertStringIncludes(await Deno.readTextFile(join(`${dir}`, "toolroute.json")), "// mine");
  });
});

Deno.test("toolroute init never writes through a toolroute.schema.json link a repository planted", async () => {
  await using dir = await tempDir();
  const victim = join(`${dir}`, "victim.txt");
  await Deno.writeTextFile(victim, "the user's own file\n");
  const repo = join(`${dir}`, "repo");
  await Deno.mkdir(repo);
  await Deno.symlink(victim, join(repo, "toolroute.schema.json"));
  await inDir(repo, async () => {
    const { code, err } = await cli(["init"]);
    assertEquals(code, 2);
    assertStringIncludes(err, "is not a regular file");
  });
  // The link was there and pointed at the file; the file is untouched and no config was written.
  assertEquals(await Deno.readLink(join(repo, "toolroute.schema.json")), victim);
  assertEquals(await Deno.readTextFile(victim), "the user's own file\n");
  assertEquals(await Deno.stat(join(repo, "toolroute.json")).then(() => true, () => false), false);
});

Deno.test("toolroute init --config DIR/F --workspace DIR2 makes the folders a new project needs, and the config serves", async () => {
  await using dir = await tempDir();
  await inDir(`${dir}`, async () => {
    const config = join("app", "conf", "toolroute.json");
    const made = await cli(["init", "--config", config, "--workspace", join("app", "src")]);
    assertEquals(made.code, 0, made.err);
    // Both folders were absent: init made them.
    assert((await Deno.stat(join(`${dir}`, "app", "src"))).isDirectory);
    assertEquals(
      (parseJsonc(await Deno.readTextFile(join(`${dir}`, config))) as { workspace: string })
        .workspace,
      "../src",
    );
    await Deno.writeTextFile(join(`${dir}`, "app", "src", "a.txt"), "in the new workspace\n");
    const read = await cli(["call", "--config", config, "read_file", '{"path":"a.txt"}']);
    assertEquals(read.code, 0, read.err);
    assert(read.out.includes("in the new workspace"), read.out);
    // A file where a folder goes is named, not an OS error alone.
    await Deno.writeTextFile(join(`${dir}`, "file"), "");
    const blocked = await cli(["init", "--config", join("file", "toolroute.json")]);
    assertEquals(blocked.code, 2);
    assert(blocked.err.includes(`Cannot write "${dir}/file/toolroute.json"`), blocked.err);
  });
});

/**
 * Runs the CLI on a terminal of its own (`script` gives it one), types each input's answer once
 * its question appears, and returns all the terminal showed.
 */
async function onTerminal(args: string[], answers: Record<string, string>): Promise<string> {
  const quoted = [Deno.execPath(), "run", "-A", CLI_ENTRY, ...args]
    .map((arg) => `'${arg.replaceAll("'", `'\\''`)}'`).join(" ");
  const child = new Deno.Command("script", {
    args: ["-qec", quoted, "/dev/null"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  const writer = child.stdin.getWriter();
  const decoder = new TextDecoder();
  let shown = "";
  const asked = new Set<string>();
  for await (const chunk of child.stdout) {
    shown += decoder.decode(chunk, { stream: true });
    // Typed only once its question is up: the terminal is then in the mode the CLI chose.
    for (const [input, answer] of Object.entries(answers)) {
      if (asked.has(input) || !shown.includes(`input "${input}"`)) continue;
      asked.add(input);
      await writer.write(new TextEncoder().encode(`${answer}\r`));
    }
  }
  await writer.close().catch(() => {});
  await child.status;
  await child.stderr.cancel();
  assertEquals([...asked].sort(), Object.keys(answers).sort(), shown);
  return shown;
}

const CLI_ENTRY = `${REPO}src/deno/cli/mod.ts`;

Deno.test("VS Code's password input is asked on a terminal without echoing the answer; another input is echoed", async () => {
  await using dir = await tempDir();
  const path = await writeJson(join(`${dir}`, ".vscode", "mcp.json"), {
    inputs: [
      { type: "promptString", id: "api-key", description: "API key", password: true },
      { type: "promptString", id: "region", description: "Region" },
    ],
    servers: {
      fixture: {
        ...FIXTURE_SERVER,
        env: { API_KEY: "${input:api-key}" },
        args: [...FIXTURE_SERVER.args, "${input:region}"],
      },
    },
  });
  const secret = "typed-secret-0123456789";
  const hidden = await onTerminal(
    ["call", "--config", path, "env", '{"name":"API_KEY"}'],
    { "api-key": secret, region: "eu-west-typed" },
  );
  // The server got the typed value (its answer is that value, redacted as a secret) ...
  assertStringIncludes(hidden, "[redacted]");
  // ... and the terminal never showed it.
  assert(!hidden.includes(secret), hidden);
  // The terminal does echo what is typed for an input that is not a password.
  assertStringIncludes(hidden, "eu-west-typed");
});

import { assertEquals, assertMatch, assertRejects } from "@std/assert";
import { loadConfig, resolveConfig } from "../../../src/deno/cli/load_config.ts";
import { UsageError } from "../../../src/deno/cli/usage_error.ts";

function problems(value: unknown): string {
  try {
    resolveConfig(value, { env: {}, path: "/etc/toolroute.json", cwd: "/home/u" });
  } catch (error) {
    if (error instanceof UsageError) return error.message;
    throw error;
  }
  throw new Error("expected a UsageError");
}

Deno.test("resolveConfig() lists every problem at once with its JSON path", () => {
  const message = problems({
    workspace: 5,
    bash: { sandbox: "docker" },
    limits: { readMaxChars: -1 },
    expose: { builtins: ["rm"] },
    mcpServers: { gh: { headers: {} } },
    colour: "blue",
  });
  assertMatch(message, /^Invalid config "\/etc\/toolroute.json":/);
  for (
    const path of [
      "workspace:",
      "bash",
      "limits.readMaxChars:",
      "expose.builtins[0]:",
      "mcpServers.gh:",
      'Unrecognized key: "colour"',
    ]
  ) {
    assertMatch(message, new RegExp(path.replace(/[[\].]/g, "\\$&")));
  }
});

Deno.test("resolveConfig() rejects unknown keys in nested objects", () => {
  assertMatch(
    problems({ expose: { builtin: ["read_file"] } }),
    /expose: Unrecognized key: "builtin"/,
  );
  assertMatch(problems({ users: { T: { id: "a", admin: true } } }), /users\.T: Unrecognized key/);
});

Deno.test("resolveConfig() resolves paths against the file's folder and the workspace flag against the current one", () => {
  const config = resolveConfig({
    workspace: "ws",
    readOnlyRoots: ["../docs", "/abs"],
    modules: ["tools.ts"],
  }, { env: {}, path: "/etc/tr/toolroute.json", cwd: "/home/u" });
  assertEquals(config.context, { workspace: "/etc/tr/ws", readOnlyRoots: ["/etc/docs", "/abs"] });
  assertEquals(config.modules, ["/etc/tr/tools.ts"]);
  const overridden = resolveConfig({}, {
    workspace: "project",
    env: {},
    path: "/etc/tr/toolroute.json",
    cwd: "/home/u",
  });
  assertEquals(overridden.context.workspace, "/home/u/project");
  assertEquals(resolveConfig({}, { env: {}, cwd: "/home/u" }).context.workspace, "/home/u");
});

Deno.test("resolveConfig() maps limits, bash and context fields onto the built-in context", () => {
  const config = resolveConfig({
    bash: { sandbox: "bwrap", env: ["PATH"] },
    protectedPaths: [".git", "secrets"],
    limits: { readMaxChars: 10, commandTimeoutMs: 20, callTimeoutMs: 30, maxResultChars: 40 },
  }, { env: {}, cwd: "/w" });
  assertEquals(config.context, {
    workspace: "/w",
    bash: { sandbox: "bwrap", env: ["PATH"] },
    protectedPaths: [".git", "secrets"],
    readMaxChars: 10,
    commandTimeoutMs: 20,
  });
  assertEquals([config.callTimeoutMs, config.maxResultChars], [30, 40]);
});

Deno.test("resolveConfig() expands ${VAR} in servers through the gateway's expansion", () => {
  const config = resolveConfig({
    mcpServers: {
      gh: { url: "http://127.0.0.1:1/mcp", headers: { authorization: "Bearer ${GH}" } },
    },
    users: {
      TOKEN_A: {
        id: "alice",
        mcpServers: { mail: { url: "${MAIL_URL:-http://127.0.0.1:2/mcp}" } },
      },
    },
  }, { env: { GH: "abc" }, cwd: "/w" });
  assertEquals(config.mcpServers.gh, {
    url: "http://127.0.0.1:1/mcp",
    headers: { authorization: "Bearer abc" },
  });
  assertEquals(config.users, [{
    tokenVariable: "TOKEN_A",
    id: "alice",
    mcpServers: { mail: { url: "http://127.0.0.1:2/mcp" } },
  }]);
  assertEquals(config.variables, ["GH", "MAIL_URL", "TOKEN_A"]);
});

Deno.test("resolveConfig() names unset variables and duplicate user ids", () => {
  const message = problems({
    mcpServers: { gh: { url: "http://127.0.0.1:1/mcp", headers: { authorization: "${NOPE}" } } },
    users: { A: { id: "same" }, B: { id: "same" } },
  });
  assertMatch(
    message,
    /variable "NOPE" \(used at mcpServers\.gh\.headers\.authorization\) is not set/,
  );
  assertMatch(message, /users.A and users.B have the same id "same"/);
});

Deno.test("resolveConfig() with env false keeps placeholders and reads nothing", () => {
  const config = resolveConfig({ mcpServers: { gh: { url: "http://${HOST}/mcp" } } }, {
    env: false,
    cwd: "/w",
  });
  assertEquals(config.mcpServers.gh, { url: "http://${HOST}/mcp" });
});

Deno.test("loadConfig() reads JSON with comments and trailing commas", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      `${dir}/toolroute.json`,
      '{\n  // the workspace\n  "workspace": "ws", /* here */\n  "readOnlyRoots": ["/r",],\n}\n',
    );
    const config = await loadConfig(`${dir}/toolroute.json`, { env: {} });
    assertEquals(config.context, { workspace: `${dir}/ws`, readOnlyRoots: ["/r"] });
    assertEquals(config.path, `${dir}/toolroute.json`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("loadConfig() says clearly when the file is missing or not JSON", async () => {
  await assertRejects(
    () => loadConfig("/nonexistent/toolroute.json", { env: {} }),
    UsageError,
    'Cannot read config "/nonexistent/toolroute.json": the file does not exist',
  );
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/bad.json`, '{\n  "workspace": "."\n  "modules": []\n}');
    await assertRejects(
      () => loadConfig(`${dir}/bad.json`, { env: {} }),
      UsageError,
      `Cannot parse config "${dir}/bad.json": unexpected token "modules" at line 3, column 3`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("resolveConfig() protects the config file and modules that sit inside the workspace", () => {
  const config = resolveConfig({ modules: ["tools/a.ts", "/elsewhere/b.ts"] }, {
    env: {},
    path: "/srv/project/toolroute.json",
    cwd: "/",
  });
  assertEquals(config.context, {
    workspace: "/srv/project",
    protectedPaths: [".git", "./toolroute.json", "tools/a.ts"],
  });
  const own = resolveConfig({ protectedPaths: ["secrets"] }, {
    env: {},
    path: "/srv/project/toolroute.json",
    cwd: "/",
  });
  assertEquals(own.context.protectedPaths, ["secrets", "./toolroute.json"]);
});

Deno.test("resolveConfig() turns built-ins on only when asked for: workspace, bash, expose.builtins or the flag", () => {
  const builtins = (value: unknown, workspace?: string) =>
    resolveConfig(value, { env: {}, workspace, path: "/etc/mcp.json", cwd: "/home/u" }).builtins;
  const servers = { mcpServers: { files: { command: "npx", args: ["-y", "x"] } } };
  assertEquals(builtins(servers), false);
  assertEquals(builtins({}), false);
  assertEquals(builtins(servers, "."), true);
  assertEquals(builtins({ ...servers, workspace: "." }), true);
  assertEquals(builtins({ ...servers, bash: true }), true);
  assertEquals(builtins({ ...servers, expose: { builtins: ["read_file"] } }), true);
});

Deno.test("loadConfig() refuses a server or user named __proto__ by its path, instead of dropping it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/toolroute.json`;
    await Deno.writeTextFile(
      path,
      `{
        "mcpServers": { "__proto__": { "url": "https://a.example/mcp" }, "ok": { "url": "https://b.example/mcp" } },
        "users": { "TOKEN_A": { "mcpServers": { "x": { "url": "https://c.example/mcp", "headers": { "__proto__": "v" } } } } }
      }`,
    );
    const error = await assertRejects(() => loadConfig(path, { env: {} }), UsageError);
    assertMatch(error.message, /mcpServers\.__proto__: "__proto__" cannot name an entry here/);
    assertMatch(error.message, /users\.TOKEN_A\.mcpServers\.x\.headers\.__proto__:/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("loadConfig() refuses a __proto__ server of a VS Code file by the file's own path", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/mcp.json`;
    await Deno.writeTextFile(
      path,
      `{ "servers": { "__proto__": { "url": "https://a.example/mcp" } } }`,
    );
    await assertRejects(() => loadConfig(path, { env: {} }), UsageError, "servers.__proto__:");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

import { assert, assertEquals, assertRejects, assertThrows } from "@std/assert";
import { fileURLToPath } from "node:url";
import { ToolRouter } from "../../../mod.ts";
import type { McpStdioServerConfig } from "../../../src/core/mcp/mod.ts";
import { createDenoGateway } from "../../../src/deno/mcp/deno_gateway.ts";
import { loadMcpConfig, parseMcpConfig } from "../../../src/deno/mcp/load_mcp_config.ts";

async function withFile(content: string, fn: (path: string) => Promise<void>): Promise<void> {
  const path = await Deno.makeTempFile({ suffix: ".json" });
  try {
    await Deno.writeTextFile(path, content);
    await fn(path);
  } finally {
    await Deno.remove(path);
  }
}

Deno.test("loadMcpConfig() reads a Claude Desktop file and expands ${VAR} in url, headers and env", async () => {
  const file = {
    mcpServers: {
      search: {
        url: "http://127.0.0.1:${PORT}/mcp",
        headers: { Authorization: "Bearer ${TOKEN}" },
        transport: "sse",
      },
      files: {
        command: "deno",
        args: ["run", "${NOT_EXPANDED}"],
        env: { API_KEY: "${KEY}", MODE: "${MODE:-fast}" },
        cwd: "/srv",
      },
      old: { type: "sse", url: "http://127.0.0.1:1/sse" },
    },
    globalShortcut: "ignored",
  };
  await withFile(JSON.stringify(file), async (path) => {
    const servers = await loadMcpConfig(path, { env: { PORT: "8080", TOKEN: "t", KEY: "k" } });
    assertEquals(servers, {
      search: {
        url: "http://127.0.0.1:8080/mcp",
        headers: { Authorization: "Bearer t" },
        transport: "sse",
      },
      files: {
        command: "deno",
        args: ["run", "${NOT_EXPANDED}"],
        env: { API_KEY: "k", MODE: "fast" },
        secretEnv: ["API_KEY", "MODE"], // from ${VAR}: kept out of results
        cwd: "/srv",
      },
      old: { url: "http://127.0.0.1:1/sse", transport: "sse" },
    });
  });
});

Deno.test("loadMcpConfig() reads variables from the environment by default", async () => {
  Deno.env.set("TOOLROUTE_TEST_TOKEN", "from-env");
  try {
    await withFile(
      '{"mcpServers":{"a":{"url":"http://127.0.0.1/mcp","headers":{"x":"${TOOLROUTE_TEST_TOKEN}"}}}}',
      async (path) => {
        const servers = await loadMcpConfig(path);
        assertEquals(servers.a, { url: "http://127.0.0.1/mcp", headers: { x: "from-env" } });
      },
    );
  } finally {
    Deno.env.delete("TOOLROUTE_TEST_TOKEN");
  }
});

Deno.test("loadMcpConfig() names every unset variable with its server and field", async () => {
  const file = {
    mcpServers: {
      github: { url: "https://${HOST}/mcp", headers: { Authorization: "Bearer ${GH_TOKEN}" } },
      db: { command: "db-mcp", env: { PASSWORD: "${DB_PASSWORD}" } },
    },
  };
  await withFile(JSON.stringify(file), async (path) => {
    const error = await assertRejects(() => loadMcpConfig(path, { env: {} }), TypeError);
    assert(error.message.includes(`MCP config "${path}"`), error.message);
    assert(error.message.includes('"HOST" (server "github", url)'), error.message);
    assert(error.message.includes('"GH_TOKEN" (server "github", headers.Authorization)'));
    assert(error.message.includes('"DB_PASSWORD" (server "db", env.PASSWORD)'));
  });
});

Deno.test("parseMcpConfig() lists every problem at once, each with its JSON path", () => {
  const error = assertThrows(
    () =>
      parseMcpConfig({
        mcpServers: {
          a: { url: 42 },
          b: { command: "x", args: "not-a-list", env: { N: 1 } },
          c: {},
          d: { url: "http://127.0.0.1/", command: "x" },
          e: { url: "http://127.0.0.1/", transport: "websocket", env: {} },
          f: { url: "http://127.0.0.1/", header: { Authorization: "x" } },
        },
      }, { env: {} }),
    TypeError,
  );
  const lines = error.message.split("\n").slice(1).map((line: string) => line.trim());
  assert(error.message.startsWith("Invalid MCP config:"), error.message);
  for (
    const path of [
      "mcpServers.a.url:",
      "mcpServers.b.args:",
      "mcpServers.b.env.N:",
      "mcpServers.c:",
      "mcpServers.d:",
      "mcpServers.e.transport:",
      "mcpServers.e.env:",
      "mcpServers.f: Unrecognized key",
    ]
  ) {
    assert(
      lines.some((line: string) => line.startsWith(`- ${path}`)),
      `${path} in\n${error.message}`,
    );
  }
});

Deno.test("parseMcpConfig() rejects a file without mcpServers", () => {
  const error = assertThrows(() => parseMcpConfig({ servers: {} }), TypeError);
  assert(error.message.includes("- mcpServers:"), error.message);
  assertThrows(() => parseMcpConfig(null), TypeError, "(root)");
});

Deno.test("loadMcpConfig() reports a file that is not JSON, naming it", async () => {
  await withFile("{ nope", async (path) => {
    await assertRejects(
      () => loadMcpConfig(path),
      SyntaxError,
      `Cannot parse MCP config "${path}"`,
    );
  });
});

Deno.test("parseMcpConfig() accepts other clients' keys: disabled servers are left out, approval lists ignored", () => {
  const servers = parseMcpConfig({
    mcpServers: {
      off: {
        command: "node",
        args: ["x.js"],
        disabled: true,
        env: { KEY: "${UNSET_BUT_DISABLED}" },
      },
      on: {
        url: "https://example.com/mcp",
        disabled: false,
        autoApprove: ["search"],
        alwaysAllow: [],
      },
    },
  }, { env: {} });
  assertEquals(servers, { on: { url: "https://example.com/mcp" } });
});

Deno.test("parseMcpConfig() reads a server's oauth client, expanding its secret, and refuses it on a stdio server", () => {
  const servers = parseMcpConfig({
    mcpServers: {
      shared: {
        url: "https://crm.example.com/mcp",
        oauth: { clientId: "svc", clientSecret: "${SVC_SECRET}", grant: "client_credentials" },
      },
    },
  }, { env: { SVC_SECRET: "s3cret" } });
  assertEquals(servers, {
    shared: {
      url: "https://crm.example.com/mcp",
      oauth: { clientId: "svc", clientSecret: "s3cret", grant: "client_credentials" },
    },
  });
  const error = assertThrows(
    () =>
      parseMcpConfig({
        mcpServers: {
          local: { command: "node", oauth: { clientId: "x" } },
          typo: { url: "https://x.example/mcp", oauth: { clientId: "x", grant: "password" } },
        },
      }, { env: {} }),
    TypeError,
  );
  assert(error.message.includes('mcpServers.local.oauth: "oauth" does not apply'), error.message);
  assert(error.message.includes("mcpServers.typo.oauth.grant"), error.message);
});

Deno.test("loadMcpConfig() marks env values from ${VAR} as secret; a stdio server's results keep plain values and lose secrets", async () => {
  const fixture = fileURLToPath(new URL("../../_fixtures/stdio_server.ts", import.meta.url));
  const file = {
    mcpServers: {
      app: {
        command: Deno.execPath(),
        args: ["run", "--allow-env", fixture],
        env: {
          NODE_ENV: "production",
          REPO: "/home/me/projects/app",
          UPSTREAM: "${UPSTREAM_CREDENTIAL}",
          DATABASE_URL: "postgres://me:hunter22@db/app",
        },
        secretEnv: ["DATABASE_URL"],
      },
    },
  };
  await withFile(JSON.stringify(file), async (path) => {
    const servers = await loadMcpConfig(path, {
      env: { UPSTREAM_CREDENTIAL: "tok-0123456789abcdef" },
    });
    assertEquals((servers.app as McpStdioServerConfig).secretEnv, ["DATABASE_URL", "UPSTREAM"]);
    await using gateway = createDenoGateway({ servers });
    const toolSet = await new ToolRouter({ gateway }).expose({ mcpServers: ["app"] });
    const echo = (text: string) => toolSet.invoke("echo", { text });
    // The child really has each value (the `env` tool reads its own environment)...
    assertEquals(await toolSet.invoke("env", { name: "NODE_ENV" }), "production");
    assertEquals(await toolSet.invoke("env", { name: "REPO" }), "/home/me/projects/app");
    assertEquals(await toolSet.invoke("env", { name: "UPSTREAM" }), "[redacted]");
    // ...plain configuration comes back as it is, secrets never.
    assertEquals(await echo("deploy to production now"), "deploy to production now");
    assertEquals(
      await echo("status of /home/me/projects/app"),
      "status of /home/me/projects/app",
    );
    assertEquals(await echo("token tok-0123456789abcdef"), "token [redacted]");
    assertEquals(await echo("db postgres://me:hunter22@db/app"), "db [redacted]");
  });
});

Deno.test("parseMcpConfig() refuses a secretEnv name that is not in env, and secretEnv on a remote server", () => {
  const error = assertThrows(
    () =>
      parseMcpConfig({
        mcpServers: {
          a: { command: "x", env: { A: "1" }, secretEnv: ["API_KEY"] },
          b: { url: "http://127.0.0.1/mcp", secretEnv: ["A"] },
        },
      }, { env: {} }),
    TypeError,
  );
  assert(error.message.includes('mcpServers.a.secretEnv[0]: "API_KEY" is not a name in "env"'));
  assert(error.message.includes('mcpServers.b.secretEnv: "secretEnv" does not apply'));
});

Deno.test("parseMcpConfig() keeps secretArgs, and refuses an index past args and secretArgs on a remote server", () => {
  assertEquals(
    parseMcpConfig({
      mcpServers: { a: { command: "x", args: ["--token", "tok"], secretArgs: [1, 1] } },
    }, { env: {} }).a,
    { command: "x", args: ["--token", "tok"], secretArgs: [1] },
  );
  const error = assertThrows(
    () =>
      parseMcpConfig({
        mcpServers: {
          a: { command: "x", args: ["--token", "tok"], secretArgs: [2] },
          b: { url: "http://127.0.0.1/mcp", secretArgs: [0] },
        },
      }, { env: {} }),
    TypeError,
  );
  assert(error.message.includes('mcpServers.a.secretArgs[0]: 2 is not an index in "args"'));
  assert(error.message.includes('mcpServers.b.secretArgs: "secretArgs" does not apply'));
});

Deno.test("parseMcpConfig() takes protocol on either kind of server and refuses another value", () => {
  assertEquals(
    parseMcpConfig({
      mcpServers: {
        remote: { url: "https://a.example/mcp", protocol: "2026-07-28" },
        local: { command: "srv", protocol: "2025" },
        plain: { url: "https://b.example/mcp" },
      },
    }),
    {
      remote: { url: "https://a.example/mcp", protocol: "2026-07-28" },
      local: { command: "srv", protocol: "2025" },
      plain: { url: "https://b.example/mcp" },
    },
  );
  const error = assertThrows(() =>
    parseMcpConfig({ mcpServers: { x: { url: "https://a.example/mcp", protocol: "2024" } } })
  );
  assert(/mcpServers\.x\.protocol/.test((error as Error).message), (error as Error).message);
});

Deno.test("parseMcpConfig() takes connectTimeoutMs on either kind of server and refuses one below 1 ms", () => {
  assertEquals(
    parseMcpConfig({
      mcpServers: {
        remote: { url: "https://a.example/mcp", connectTimeoutMs: 30_000 },
        local: { command: "npx", args: ["-y", "srv"], connectTimeoutMs: 180_000 },
      },
    }),
    {
      remote: { url: "https://a.example/mcp", connectTimeoutMs: 30_000 },
      local: { command: "npx", args: ["-y", "srv"], connectTimeoutMs: 180_000 },
    },
  );
  const error = assertThrows(() =>
    parseMcpConfig({ mcpServers: { x: { command: "srv", connectTimeoutMs: 0 } } })
  );
  assert(
    /mcpServers\.x\.connectTimeoutMs/.test((error as Error).message),
    (error as Error).message,
  );
});

Deno.test("parseMcpConfig() refuses a server named __proto__ instead of dropping it", () => {
  const value = JSON.parse('{"mcpServers":{"__proto__":{"url":"https://a.example/mcp"}}}');
  assertThrows(
    () => parseMcpConfig(value, { env: {} }),
    TypeError,
    'mcpServers.__proto__: "__proto__"',
  );
});

import { assert, assertEquals, assertThrows } from "@std/assert";
import {
  isDeno,
  mayDownload,
  NETWORK_ENV,
  stdioChildCommand,
} from "../../../src/deno/mcp/stdio_child_command.ts";

Deno.test("stdioChildCommand() inserts --no-prompt after `run` of a Deno child, once", () => {
  assertEquals(stdioChildCommand({ command: "deno", args: ["run", "x.ts", "--flag"] }).args, [
    "run",
    "--no-prompt",
    "x.ts",
    "--flag",
  ]);
  assertEquals(
    stdioChildCommand({ command: Deno.execPath(), args: ["run", "--no-prompt", "-R", "x.ts"] })
      .args,
    ["run", "--no-prompt", "-R", "x.ts"],
  );
  assertEquals(stdioChildCommand({ command: "/opt/bin/deno", args: ["serve", "x.ts"] }).args, [
    "serve",
    "--no-prompt",
    "x.ts",
  ]);
});

Deno.test("stdioChildCommand() leaves the arguments of other programs as they are", () => {
  assertEquals(stdioChildCommand({ command: "npx", args: ["run", "x"] }).args, ["run", "x"]);
  assertEquals(stdioChildCommand({ command: "deno", args: ["fmt", "x.ts"] }).args, ["fmt", "x.ts"]);
});

Deno.test("stdioChildCommand() builds a minimal environment plus the config's, never the whole host's", () => {
  Deno.env.set("TOOLROUTE_TEST_SECRET", "s");
  try {
    const { env } = stdioChildCommand({ command: "node", env: { API_KEY: "k", PATH: "/custom" } });
    assertEquals(env.API_KEY, "k");
    assertEquals(env.PATH, "/custom");
    assertEquals(env.TOOLROUTE_TEST_SECRET, undefined);
    assertEquals(env.DENO_DIR, undefined, "only a Deno child gets DENO_DIR");
    assert(Object.keys(env).length <= 9 + NETWORK_ENV.length);
  } finally {
    Deno.env.delete("TOOLROUTE_TEST_SECRET");
  }
});

Deno.test("stdioChildCommand() passes the host's Deno cache to a Deno child", () => {
  const { env } = stdioChildCommand({ command: "deno", args: ["run", "x.ts"] });
  const host = Deno.env.get("DENO_DIR");
  if (host !== undefined) assertEquals(env.DENO_DIR, host, "the host's own DENO_DIR");
  else assert(env.DENO_DIR !== undefined && env.DENO_DIR.endsWith("deno"), env.DENO_DIR);
  const own = stdioChildCommand({ command: "deno", env: { DENO_DIR: "/own" } });
  assertEquals(own.env.DENO_DIR, "/own");
});

Deno.test({
  name: "stdioChildCommand() works without env permission, inheriting nothing",
  permissions: { env: false },
  fn() {
    const { env } = stdioChildCommand({ command: "node", env: { A: "1" } });
    assertEquals(env, { A: "1" });
  },
});

Deno.test("isDeno() recognises deno, deno.exe and Deno.execPath()", () => {
  assert(isDeno("deno"));
  assert(isDeno("C:\\Tools\\deno.exe"));
  assert(isDeno(Deno.execPath()));
  assert(!isDeno("denox"));
  assert(!isDeno("node"));
});

Deno.test("stdioChildCommand() refuses deno eval and repl: they always have every permission", () => {
  assertThrows(
    () => stdioChildCommand({ command: "deno", args: ["eval", "serve()"] }),
    TypeError,
    'Cannot start "deno eval" as an MCP server',
  );
  assertThrows(() => stdioChildCommand({ command: Deno.execPath(), args: ["repl"] }), TypeError);
});

Deno.test("stdioChildCommand() passes the network variables that are set, each removable", () => {
  const saved = Object.fromEntries(NETWORK_ENV.map((name) => [name, Deno.env.get(name)]));
  try {
    for (const name of NETWORK_ENV) Deno.env.delete(name);
    Deno.env.set("HTTPS_PROXY", "http://proxy.internal:3128");
    Deno.env.set("NODE_EXTRA_CA_CERTS", "/etc/ssl/corp.pem");
    const { env } = stdioChildCommand({ command: "npx", args: ["-y", "server"] });
    assertEquals(env.HTTPS_PROXY, "http://proxy.internal:3128");
    assertEquals(env.NODE_EXTRA_CA_CERTS, "/etc/ssl/corp.pem");
    assertEquals("HTTP_PROXY" in env, false, "unset variables are not passed");
    const narrowed = stdioChildCommand({ command: "npx" }, { inheritEnv: ["NODE_EXTRA_CA_CERTS"] });
    assertEquals(narrowed.env.HTTPS_PROXY, undefined);
    assertEquals(narrowed.env.NODE_EXTRA_CA_CERTS, "/etc/ssl/corp.pem");
    assertEquals(
      stdioChildCommand({ command: "npx" }, { inheritEnv: [] }).env.HTTPS_PROXY,
      undefined,
    );
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) Deno.env.delete(name);
      else Deno.env.set(name, value);
    }
  }
});

Deno.test("mayDownload() is true for npx, bunx, uvx, npm exec, pnpm dlx and deno run", () => {
  const yes = [
    { command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] },
    { command: "/usr/local/bin/bunx", args: ["x"] },
    { command: "uvx", args: ["mcp-server-git"] },
    { command: "npm", args: ["exec", "x"] },
    { command: "pnpm", args: ["dlx", "x"] },
    { command: "deno", args: ["run", "npm:x"] },
  ];
  for (const config of yes) assertEquals(mayDownload(config), true, JSON.stringify(config));
  for (
    const config of [{ command: "node", args: ["server.js"] }, { command: "deno", args: ["fmt"] }]
  ) {
    assertEquals(mayDownload(config), false, JSON.stringify(config));
  }
});

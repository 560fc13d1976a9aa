import { assert, assertEquals, assertThrows } from "@std/assert";
import { isDeno, stdioChildCommand } from "../../../src/deno/mcp/stdio_child_command.ts";

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
    assert(Object.keys(env).length <= 9);
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

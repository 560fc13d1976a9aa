import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { HELP_TEXT } from "../../../src/deno/cli/help_text.ts";
import { cli } from "./_serve_process.ts";

const COMMANDS = ["serve", "tools", "call", "flags", "lock", "init", "grants"];

/** Every `--flag` a help text mentions, without `--help`. */
function flagsIn(text: string): string[] {
  return [...new Set([...text.matchAll(/--[a-z][a-z-]*/g)].map((m) => m[0]))]
    .filter((flag) => flag !== "--help");
}

Deno.test("HELP_TEXT has the program's help and one per command, frozen", () => {
  assertEquals(Object.keys(HELP_TEXT), ["", ...COMMANDS]);
  assert(Object.isFrozen(HELP_TEXT));
});

Deno.test("HELP_TEXT of the program lists every command and the exit codes", () => {
  const text = HELP_TEXT[""];
  assert(text.startsWith("toolroute: "));
  assertStringIncludes(text, "Usage: toolroute <command> [options]");
  for (const command of COMMANDS) assertStringIncludes(text, `\n  ${command} `);
  assertStringIncludes(text, "0 success, 1 the tool returned an error, 2 misuse");
});

Deno.test("HELP_TEXT of each command starts with its usage and documents -h, --help", () => {
  for (const command of COMMANDS) {
    const text = HELP_TEXT[command];
    assert(text.startsWith(`Usage: toolroute ${command}`), command);
    assertStringIncludes(text, "-h, --help");
    // `grants` reads the store, not the config.
    if (command === "grants") continue;
    assertStringIncludes(text, "--config FILE");
    assertStringIncludes(text, "--workspace DIR");
  }
});

Deno.test("HELP_TEXT lines stay within 100 columns", () => {
  for (const [command, text] of Object.entries(HELP_TEXT)) {
    for (const line of text.split("\n")) {
      assert(line.length <= 100, `"${command}": ${line}`);
    }
  }
});

Deno.test("HELP_TEXT documents only flags the command accepts", async () => {
  for (const command of COMMANDS) {
    const flags = flagsIn(HELP_TEXT[command]);
    assert(flags.length >= 2, command);
    for (const flag of flags) {
      // A value after the flag is consumed (or becomes a positional of a boolean flag); --help
      // then prints the help before anything runs. An unknown flag exits 2.
      const { code, err } = await cli([command, flag, "x", "--help"]);
      assertEquals(code, 0, `toolroute ${command} ${flag}: ${err}`);
    }
  }
});

Deno.test("HELP_TEXT documents every flag each command accepts", () => {
  const accepted: Record<string, string[]> = {
    serve: [
      "--config",
      "--workspace",
      "--user",
      "--http",
      "--stdio",
      "--allow-excess",
      "--audit",
      "--store",
    ],
    tools: ["--config", "--workspace", "--user", "--json"],
    call: ["--config", "--workspace", "--user", "--timeout"],
    flags: ["--config", "--workspace", "--http", "--audit", "--store"],
    lock: ["--config", "--workspace", "--check"],
    init: ["--config", "--workspace"],
    grants: ["--store", "--user", "--json"],
  };
  for (const command of COMMANDS) {
    for (const flag of accepted[command]) assertStringIncludes(HELP_TEXT[command], flag);
  }
});

Deno.test("HELP_TEXT is what runCli() prints for --help", async () => {
  assertEquals((await cli(["--help"])).out, HELP_TEXT[""]);
  assertEquals((await cli(["help", "call"])).out, HELP_TEXT.call);
  for (const command of COMMANDS) {
    assertEquals((await cli([command, "-h"])).out, HELP_TEXT[command]);
  }
});

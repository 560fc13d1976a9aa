// `runCli` dispatches through a table since issue 27 (`commands[command]()`), looked up like the
// flag specs (`SPECS[command]`) on plain objects: a command named after an `Object.prototype`
// member passed the "unknown command" check (its spec was the inherited member) and then ran that
// member as the command, returning `{}`, `"[object Object]"` or `false` as the exit code with no
// output. Before the table the same names fell through to `flags`. Only own names are commands.
import { assertEquals, assertMatch } from "@std/assert";
import { runCli } from "../../src/deno/cli/run_cli.ts";

Deno.test("a command named after an Object.prototype member is an unknown command (exit 2), not a call of that member", async () => {
  for (const command of ["constructor", "toString", "valueOf", "hasOwnProperty", "isPrototypeOf"]) {
    const lines: string[] = [];
    const code = await runCli(
      [command],
      {
        out: (line: string) => lines.push(line),
        err: (line: string) => lines.push(line),
      } as Parameters<typeof runCli>[1],
    );
    assertEquals(code, 2, `${command}: ${JSON.stringify(code)}`);
    assertMatch(lines.join("\n"), new RegExp(`Unknown command "${command}"`));
  }
});

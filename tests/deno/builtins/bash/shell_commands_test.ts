/**
 * The bash grammar that `bash(...)` policy rules read (finding 9, round 3), checked against bash
 * itself: a script the parser calls plain must run exactly the commands it names.
 *
 * @module
 */
import { assert, assertEquals, assertThrows } from "@std/assert";
import {
  bashSubjects,
  commandVariants,
  shellCommands,
} from "../../../../src/deno/builtins/bash/shell_commands.ts";

Deno.test("words after quote removal; assignments, redirections and expansions make a command not plain", () => {
  assertEquals(shellCommands(`g"i"t 'st'a\\tus $'\\x2d'v`), [
    { words: ["git", "status", "-v"], plain: true },
  ]);
  assertEquals(shellCommands("GIT_DIR=x git status > out"), [
    { words: ["git", "status"], plain: false },
  ]);
  assertEquals(shellCommands("echo $(rm -rf x)").map((c) => [c.words.join(" "), c.plain]), [
    ["echo $(rm -rf x)", false],
    ["rm -rf x", false],
  ]);
  assertEquals(shellCommands("if a; then b; fi").map((c) => [c.words.join(" "), c.plain]), [
    ["If", false],
    ["a", false],
    ["b", false],
  ]);
  assertEquals(bashSubjects({ action: "list" }), { kind: "commands", commands: [] });
  assertEquals(bashSubjects({ command: "sudo /bin/rm x" }), {
    kind: "commands",
    commands: [{ words: ["sudo", "/bin/rm", "x"], plain: true }],
    variants: ["/bin/rm x", "rm x", "x"],
  });
  // Readings past the bound fail closed rather than be cut short.
  assertThrows(
    () => commandVariants(Array(3).fill({ words: Array(16).fill("env"), plain: true })),
    RangeError,
  );
  assertThrows(() => bashSubjects({ command: 7 }), TypeError);
  assertThrows(() => shellCommands("echo 'open"), SyntaxError);
});

/** A seeded generator, so a failure names a script that fails again. */
function random(seed: number): () => number {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
}

const TOKENS = [
  "a",
  "b",
  " ",
  " ",
  "x",
  "\\",
  "'",
  '"',
  "#",
  ";",
  "&",
  "|",
  "\n",
  "\r",
  "\t",
  "{",
  "}",
  "(",
  ")",
  "!",
  "=",
  "$",
  "`",
  "<",
  ">",
  "*",
  "-",
  "2>&1",
  "&&",
  "||",
  "a x",
  "b y",
  "\\\n",
  "$'\\x61'",
  "if",
  "then",
  "fi",
  "do",
  "done",
  "[[",
  "]]",
  "%",
  ",",
  "[",
  "]",
  "?",
  "@",
  "+",
  "function",
  "alias",
  "case",
  "in",
  "esac",
  ":",
  "$[",
  "((",
  "))",
  "<<",
  "<<<",
  ">&",
  "|&",
  ";;",
  "coproc",
  "time",
  "2>",
  "&>",
  "$(",
  "{ ",
  " }",
  "x=1 ",
  "!(",
  "$((",
  "'\\''",
  "eval ",
  "exec ",
]; // deno-fmt-ignore

Deno.test("differential: every script the parser calls plain runs in bash exactly the commands it names", async () => {
  const dir = await Deno.makeTempDir({ prefix: "toolroute_shell_" });
  try {
    await Deno.mkdir(`${dir}/bin`);
    await Deno.mkdir(`${dir}/cwd`);
    // Stub programs record their name and arguments: NUL between them, \x01 after each call.
    const stub = `#!/bin/bash\nprintf '%s\\0' "\${0##*/}" "$@" >> "$LOG"; printf '\\1' >> "$LOG"\n`;
    for (const name of ["a", "b"]) {
      await Deno.writeTextFile(`${dir}/bin/${name}`, stub, { mode: 0o755 });
    }
    const next = random(2509);
    let checked = 0;
    for (let round = 0; round < 1500; round++) {
      let script = next() < 0.5 ? "a " : "";
      const count = 2 + Math.floor(next() * 8);
      for (let i = 0; i < count; i++) script += TOKENS[Math.floor(next() * TOKENS.length)];
      let commands;
      try {
        commands = shellCommands(script);
      } catch {
        continue;
      }
      if (commands.length === 0 || !commands.every((c) => c.plain)) continue;
      if (!commands.every((c) => c.words[0] === "a" || c.words[0] === "b")) continue;
      // Words with ~ or a file-name glob expand; the rule reads them as written, by design.
      if (commands.some((c) => c.words.some((w) => /[~*?[]/.test(w)))) continue;
      const log = `${dir}/log`;
      const trace = `${dir}/trace`;
      await Deno.writeTextFile(log, "");
      await Deno.writeTextFile(trace, "");
      // The DEBUG trap names every simple command bash runs, builtins included.
      const traced = `trap wait EXIT; trap 'printf "%s\\n" "$BASH_COMMAND" >> ${trace}' DEBUG\n`;
      const output = await new Deno.Command("/bin/bash", {
        args: ["-c", traced + script],
        env: { PATH: `${dir}/bin`, LOG: log },
        clearEnv: true,
        cwd: `${dir}/cwd`,
        stdout: "null",
        stderr: "null",
      }).output();
      const ran = (await Deno.readTextFile(log)).split("\x01").filter((call) => call !== "")
        .map((call) => JSON.stringify(call.split("\0").slice(0, -1)));
      const others = (await Deno.readTextFile(trace)).split("\n").filter((line) =>
        line !== "" && line !== "wait" && !line.startsWith("trap ") &&
        !/^(?:\\?[ab]|'[ab]'|"[ab]"|\$'\\x61')(?:[ \t]|$)/.test(line)
      );
      // bash refusing the script (exit 2, nothing run) is the safe side of a difference.
      if (output.code === 2 && ran.length === 0 && others.length === 0) continue;
      checked++;
      const named = commands.map((c) => JSON.stringify(c.words));
      const message = `${JSON.stringify(script)} named ${named} ran ${ran} and ${others}`;
      assertEquals(others, [], message);
      assert(ran.every((call) => named.includes(call)), message);
    }
    assert(checked > 100, `only ${checked} scripts were checked`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

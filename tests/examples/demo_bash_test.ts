import { assertEquals, assertMatch } from "@std/assert";
import { demoBash, INSTALL } from "../../examples/demo_bash.ts";
import { skipWithoutBwrap } from "../_helpers/bwrap.ts";
import { leftovers } from "../deno/builtins/_bash_fixture.ts";

Deno.test({
  name: "demoBash() runs a sandboxed command, shows no outside file, kills what it started",
  ignore: skipWithoutBwrap(),
  permissions: {
    read: ["/tmp"],
    write: ["/tmp"],
    run: ["bash", "bwrap", "pgrep"],
    env: ["PATH", "HOME", "LANG", "TERM"],
  },
  async fn() {
    const lines: string[] = [];
    assertEquals(await demoBash((line) => lines.push(line)), undefined);
    const text = lines.join("\n");
    assertMatch(text, /--allow-run=bash,bwrap --allow-env=PATH,HOME,LANG,TERM --no-prompt/);
    assertMatch(text, /sandboxed command .*\| ok .*"stdout":"sum: 42\\nbin dev etc /);
    assertMatch(
      text,
      /read outside the workspace .*cat: \.\.\/private\/api_key\.txt: No such file/,
    );
    assertMatch(text, /a command that never ends .*"exitCode":137/);
    assertMatch(text, /its log .*"text":"serving\\n"/);
    assertMatch(text, /stop it .*"running":false/);
    assertEquals(await leftovers("echo serving; sleep 30"), []);
  },
});

Deno.test({
  name: "demoBash() without bubblewrap says so once, with the install command, and is skipped",
  permissions: {
    read: ["/tmp"],
    write: ["/tmp"],
    // Unscoped: --allow-run=bwrap would resolve bwrap's path when granted, whatever PATH is later.
    run: true,
    env: ["PATH", "HOME", "LANG", "TERM"],
  },
  async fn() {
    // An empty folder as PATH: bwrap is not found, as on a machine without it.
    const empty = await Deno.makeTempDir();
    const path = Deno.env.get("PATH");
    Deno.env.set("PATH", empty);
    const lines: string[] = [];
    try {
      assertEquals(
        await demoBash((line) => lines.push(line)),
        "bubblewrap is not installed",
      );
    } finally {
      if (path === undefined) Deno.env.delete("PATH");
      else Deno.env.set("PATH", path);
      await Deno.remove(empty);
    }
    const text = lines.join("\n");
    assertEquals(text.match(/not installed/g)?.length, 1, text);
    assertEquals(text.split(INSTALL).length, 2, text);
    assertMatch(text, /With bubblewrap, this part shows/);
    assertMatch(text, /killed at its 300 ms deadline/);
    assertEquals(lines.filter((line) => line.includes("|")), [], "no table of errors");
  },
});

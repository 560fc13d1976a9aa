import { assertEquals, assertMatch } from "@std/assert";
import { demoBash } from "../../examples/demo_bash.ts";
import { leftovers } from "../deno/builtins/_bash_fixture.ts";

Deno.test({
  name: "demoBash() runs a sandboxed command, shows no outside file, kills what it started",
  permissions: {
    read: ["/tmp"],
    write: ["/tmp"],
    run: ["bash", "bwrap", "pgrep"],
    env: ["PATH", "HOME", "LANG", "TERM"],
  },
  async fn() {
    const lines: string[] = [];
    await demoBash((line) => lines.push(line));
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

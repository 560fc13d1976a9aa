// The supervisor's input wait (an asynchronous read while work goes on, the main thread's read
// when idle) under load: a command floods its output and a background process floods its log
// while 120 file calls (reads and writes of distinct files, all at once, large and small so that
// frames split across reads) run in the same session. Every call gets its own answer, with its
// own bytes, and the session serves on.
import { assert, assertEquals } from "@std/assert";
import { makeFixture, sandboxedTools } from "../../builtins/_fixture.ts";
import { skipWithoutBwrap } from "../../../_helpers/bwrap.ts";

Deno.test({
  name:
    "concurrent file calls beside a command and a background process that flood their output each get their own answer",
  ignore: skipWithoutBwrap(),
  async fn() {
    await using f = await makeFixture();
    await using sandboxed = await sandboxedTools(f, ["bash", "read_file", "write_file"]);
    const { tools } = sandboxed;
    const text = (i: number) => `file ${i} `.repeat(i % 3 === 0 ? 9000 : 3) + "\n";
    for (let i = 0; i < 60; i++) await Deno.writeTextFile(`${f.workspace}/r${i}.txt`, text(i));
    const started = JSON.parse(
      (await tools.call("bash", { action: "start", command: "yes flood | head -c 30000000" })).text,
    );
    assert(typeof started.processId === "string", JSON.stringify(started));
    const flood = tools.call("bash", {
      command: "yes exec-flood | head -c 20000000; echo; echo end-of-flood",
    });
    const calls: Promise<void>[] = [];
    for (let i = 0; i < 60; i++) {
      calls.push(
        tools.call("read_file", { path: `r${i}.txt` }).then((result) => {
          assert(!result.isError, result.text);
          // Large files are cut at the read's character limit: their start, then.
          const content = JSON.parse(result.text).content as string;
          if (i % 3 === 0) assert(content.length > 0 && text(i).startsWith(content), `r${i}`);
          else assertEquals(content, text(i), `r${i}`);
        }),
      );
      calls.push(
        tools.call("write_file", { path: `w${i}.txt`, content: text(i + 1) }).then(
          (result) => assert(!result.isError, result.text),
        ),
      );
    }
    await Promise.all(calls);
    const flooded = await flood;
    assert(!flooded.isError, flooded.text);
    // The attack ran: the command's output went through the session while the calls did.
    const out = JSON.parse(flooded.text).stdout as string;
    assert(out.startsWith("exec-flood\n") && out.endsWith("end-of-flood\n"), out.slice(-200));
    for (let i = 0; i < 60; i++) {
      assertEquals(await Deno.readTextFile(`${f.workspace}/w${i}.txt`), text(i + 1), `w${i}`);
    }
    const echo = await tools.call("bash", { command: "echo ok" });
    assertEquals(JSON.parse(echo.text).stdout, "ok\n");
  },
});

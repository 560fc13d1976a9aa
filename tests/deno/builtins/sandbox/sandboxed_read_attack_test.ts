// A sandboxed command that rewrites, grows, shrinks and swaps a file while read_file reads it
// through the session (sizes around the 64 KiB first read, empty, sparse, a FIFO, a directory, a
// symlink out): every read ends with a result or a plain refusal, the session lives on, nothing
// from outside is read.
import { assert, assertEquals } from "@std/assert";
import { logsWhenEnded, makeFixture, sandboxedTools, SECRET } from "../_fixture.ts";
import { skipWithoutBwrap } from "../../../_helpers/bwrap.ts";

Deno.test({
  name:
    "read_file through the session while a command rewrites, grows, shrinks and swaps the file ends every read and keeps the session",
  ignore: skipWithoutBwrap(),
  async fn() {
    await using f = await makeFixture();
    await using sandboxed = await sandboxedTools(f, ["bash", "read_file"]);
    const { router, tools } = sandboxed;
    // Lines of 16 bytes: 4096 of them are exactly 64 KiB.
    const started = JSON.parse(
      (await tools.call("bash", {
        action: "start",
        command:
          `line=$(printf '%015d' 0); n=0; end=$((SECONDS + 3)); while [ $SECONDS -lt $end ]; do
          for k in 4095 4096 4097; do yes "$line" | head -n $k > t.new; mv -f t.new t; done
          yes "$line" | head -n 4096 > t; : > t
          (yes "$line" | head -n 20000 >> t) ; truncate -s 100 t
          rm -f t; truncate -s 1G t
          rm -f t; mkfifo t; rm -f t; mkdir t; rmdir t
          ln -s ${f.outside}/secret.txt t; rm -f t
          n=$((n+1)); done; echo "swaps=$n"`,
      })).text,
    );
    let reads = 0;
    const outcomes = new Map<string, number>();
    const until = Date.now() + 2500;
    while (Date.now() < until) {
      const result = await tools.call("read_file", { path: "t" });
      reads++;
      assert(!result.text.includes(SECRET), "read from outside");
      const kind = result.isError
        ? `${result.code}: ${result.text.slice(0, 60)}`
        : `ok ${JSON.parse(result.text).content.length}`;
      outcomes.set(kind, (outcomes.get(kind) ?? 0) + 1);
      if (result.isError) {
        assert(result.code === "tool_error" || result.code === "permission_denied", result.text);
      } else {
        const content = JSON.parse(result.text).content as string;
        assert(/^(0{15}\n)*0*$/.test(content), "text that was never in the file");
      }
    }
    const logs = await logsWhenEnded(tools, started.processId);
    const swaps = Number(/swaps=(\d+)/.exec(logs)?.[1] ?? 0);
    console.log(`read race: ${reads} reads, ${swaps} swap rounds`, Object.fromEntries(outcomes));
    assert(reads > 0 && swaps > 0, logs);
    const echo = await tools.call("bash", { command: "echo ok" });
    assertEquals(JSON.parse(echo.text).stdout, "ok\n");
    await router.close();
  },
});

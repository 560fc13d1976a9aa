// Attacks on write_file's one-step put: concurrent creates of one path (host access, bash off),
// and a sandboxed background command that swaps the target between a symlink, a directory, a
// FIFO and a file while write_file runs (session access).
import { assert, assertEquals } from "@std/assert";
import { fileTools, logsWhenEnded, makeFixture, sandboxedTools, SECRET } from "../_fixture.ts";
import { skipWithoutBwrap } from "../../../_helpers/bwrap.ts";

Deno.test("concurrent write_file calls in create mode on one new path: exactly one creates it, the others are refused", async () => {
  await using f = await makeFixture();
  await using setup = await fileTools(f.context);
  for (let round = 0; round < 5; round++) {
    const path = `new${round}.txt`;
    const results = await Promise.all(
      Array.from(
        { length: 8 },
        (_, i) =>
          setup.tools.call("write_file", { path, content: `writer ${i}\n`, mode: "create" }),
      ),
    );
    const winners = results.flatMap((result, i) => result.isError ? [] : [i]);
    assertEquals(results.length, 8, "the attack ran");
    assertEquals(winners.length, 1, `round ${round}: ${winners.length} calls "created" the file`);
    assertEquals(await Deno.readTextFile(`${f.workspace}/${path}`), `writer ${winners[0]}\n`);
    for (const result of results) {
      if (result.isError) assert(/already exists/.test(result.text), result.text);
    }
  }
});

Deno.test({
  name:
    "a sandboxed command swapping write_file's target (symlinks out, to a read-only root and .git, a directory, a FIFO, a file) while write_file runs: nothing outside is written, every call ends, creates stay exclusive",
  ignore: skipWithoutBwrap(),
  async fn() {
    await using f = await makeFixture();
    await Deno.mkdir(`${f.workspace}/.git/hooks`, { recursive: true });
    await using sandboxed = await sandboxedTools(f, ["bash", "write_file"]);
    const { router, tools } = sandboxed;
    // Concurrent creates through the session's supervisor.
    const creates = await Promise.all(
      Array.from(
        { length: 8 },
        (_, i) => tools.call("write_file", { path: "c.txt", content: `w${i}`, mode: "create" }),
      ),
    );
    assertEquals(creates.filter((result) => !result.isError).length, 1);
    // The swapper: a background command of the model's, for a bounded time.
    const started = JSON.parse(
      (await tools.call("bash", {
        action: "start",
        command: `n=0; end=$((SECONDS + 3)); while [ $SECONDS -lt $end ]; do
          rm -rf t; ln -s ${f.outside}/secret.txt t
          rm -f t; ln -s ${f.readOnly}/ro.txt t
          rm -f t; ln -s .git/hooks/pre-commit t
          rm -f t; mkdir t
          rm -rf t; mkfifo t
          rm -f t; echo mine > t; chmod 4755 t
          rm -f t; ln ${f.workspace}/hello.txt t
          n=$((n+1)); done; echo "swaps=$n"`,
      })).text,
    );
    let calls = 0;
    let written = 0;
    const errors = new Set<string>();
    const until = Date.now() + 2000;
    while (Date.now() < until) {
      const batch = await Promise.all([
        tools.call("write_file", { path: "t", content: SECRET + " via t\n" }),
        tools.call("write_file", { path: "t", content: "created\n", mode: "create" }),
      ]);
      calls += batch.length;
      written += batch.filter((result) => !result.isError).length;
      for (const result of batch) {
        if (!result.isError) continue;
        errors.add(`${result.code}: ${result.text.slice(0, 120)}`);
        assert(result.code === "tool_error" || result.code === "permission_denied", result.text);
      }
    }
    const logs = await logsWhenEnded(tools, started.processId);
    const swaps = Number(/swaps=(\d+)/.exec(logs)?.[1] ?? 0);
    console.log(`write_file race: ${calls} calls (${written} written), ${swaps} swap rounds`);
    console.log([...errors].join("\n"));
    assert(calls > 0 && swaps > 0, logs);
    assertEquals(await Deno.readTextFile(`${f.outside}/secret.txt`), `${SECRET}\n`);
    assertEquals(await Deno.readTextFile(`${f.readOnly}/ro.txt`), "read only\n");
    assertEquals([...Deno.readDirSync(`${f.workspace}/.git/hooks`)], []);
    assert(!Deno.readTextFileSync(`${f.workspace}/hello.txt`).includes(SECRET));
    // The session still serves.
    const echo = await tools.call("bash", { command: "echo ok" });
    assertEquals(JSON.parse(echo.text).stdout, "ok\n");
    await router.close();
  },
});

Deno.test({
  name:
    "write_file in create mode never replaces a file a sandboxed command created exclusively after write_file looked",
  ignore: skipWithoutBwrap(),
  async fn() {
    await using f = await makeFixture();
    await using sandboxed = await sandboxedTools(f, ["bash", "write_file"]);
    const { router, tools } = sandboxed;
    // The command creates `t` with O_EXCL (noclobber), reads it back, removes it: a different
    // content read back means a create of write_file's replaced the command's file.
    const started = JSON.parse(
      (await tools.call("bash", {
        action: "start",
        command: `set -C; n=0 clobbered=0; end=$((SECONDS + 3)); while [ $SECONDS -lt $end ]; do
          if echo bash 2>/dev/null > t; then n=$((n+1)); read -r c < t; [ "$c" = bash ] || clobbered=$((clobbered+1)); fi
          rm -f t; done; echo "creates=$n clobbered=$clobbered"`,
      })).text,
    );
    let calls = 0;
    const until = Date.now() + 2000;
    while (Date.now() < until) {
      await tools.call("write_file", { path: "t", content: "tool\n", mode: "create" });
      calls++;
    }
    const logs = await logsWhenEnded(tools, started.processId);
    console.log(`create race: ${calls} creates of write_file; ${logs.trim()}`);
    const creates = Number(/creates=(\d+)/.exec(logs)?.[1] ?? 0);
    assert(calls > 0 && creates > 0, logs);
    assertEquals(/clobbered=(\d+)/.exec(logs)?.[1], "0", logs);
    await router.close();
  },
});

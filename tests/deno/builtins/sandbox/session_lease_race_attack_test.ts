// A hostile model against the sandbox session's lease now that `acquire` tries `leaseNow` itself
// and the path checks are synchronous: many first calls of every file tool and bash at once (no
// session running yet), writes that change the mounts (a new repository) between them, paths out
// of the roots among them, and calls racing the router's close. Every call ends with a result or
// a plain refusal, nothing outside is read or written, and nothing starts once closed.
import { assert, assertEquals } from "@std/assert";
import { makeFixture, sandboxedTools, SECRET } from "../_fixture.ts";
import { skipWithoutBwrap } from "../../../_helpers/bwrap.ts";

Deno.test({
  name: "attack: first calls of every tool race the session's start, a mounts change and close",
  ignore: skipWithoutBwrap(),
  async fn() {
    await using f = await makeFixture();
    await using sandboxed = await sandboxedTools(f, [
      "bash",
      "read_file",
      "write_file",
      "glob",
      "grep",
      "apply_patch",
    ]);
    const { router, tools } = sandboxed;
    const calls: Promise<{ isError: boolean; code?: string; text: string }>[] = [];
    for (let i = 0; i < 4; i++) {
      calls.push(tools.call("read_file", { path: "hello.txt" }));
      calls.push(tools.call("write_file", { path: `w${i}.txt`, content: `w${i}` }));
      calls.push(tools.call("grep", { pattern: "world" }));
      calls.push(tools.call("glob", { pattern: "**/*.txt" }));
      calls.push(tools.call("bash", { command: `echo run${i}` }));
      // A new repository changes the session's mounts: a write after it replaces the session.
      calls.push(tools.call("write_file", { path: `repo${i}/.git/HEAD`, content: "ref: x\n" }));
      calls.push(tools.call("read_file", { path: `${f.outside}/secret.txt` }));
      calls.push(tools.call("write_file", { path: "../outside/planted.txt", content: "x" }));
      calls.push(tools.call("bash", { command: "pwd", cwd: f.outside }));
      calls.push(tools.call("grep", { pattern: "SECRET", path: f.outside }));
    }
    const results = await Promise.all(calls);
    // The attack ran: every call ended.
    assertEquals(results.length, 40);
    for (let i = 0; i < 4; i++) {
      const at = i * 10;
      assertEquals(results[at].isError, false, results[at].text);
      assert(results[at].text.includes("world"));
      assertEquals(results[at + 1].isError, false, results[at + 1].text);
      assertEquals(results[at + 4].isError, false, results[at + 4].text);
      assert(results[at + 4].text.includes(`run${i}`), results[at + 4].text);
      for (const refused of [6, 7, 8, 9]) {
        assertEquals(results[at + refused].isError, true, results[at + refused].text);
        assertEquals(results[at + refused].code, "permission_denied", results[at + refused].text);
      }
    }
    for (const result of results) assert(!result.text.includes(SECRET), result.text);
    assertEquals(await Deno.readTextFile(`${f.workspace}/w3.txt`), "w3");
    assertEquals([...Deno.readDirSync(f.outside)].map((entry) => entry.name), ["secret.txt"]);
    // Calls racing the close: each ends, and none after it starts a sandbox.
    const racing = [
      tools.call("read_file", { path: "hello.txt" }),
      tools.call("write_file", { path: "late.txt", content: "late" }),
      tools.call("bash", { command: "echo late" }),
    ];
    await router.close();
    const late = await Promise.all(racing);
    assertEquals(late.length, 3);
    const after = await tools.call("bash", { command: "echo after" });
    assertEquals(after.isError, true, after.text);
  },
});

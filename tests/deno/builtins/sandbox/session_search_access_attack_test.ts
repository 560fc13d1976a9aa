// Attacks of a model's own sandboxed processes on the searches that run in its sandbox session:
// a compromised supervisor (its output pipe written to, from the host since s24a; the process
// killed), a grep pattern that
// backtracks catastrophically, a crafted `.gitignore`, files swapped for FIFOs and symbolic links
// while glob and grep run. The host must stay up, keep its deadlines, and never report outside data.
import { assert, assertEquals } from "@std/assert";
import { ToolRouter, type ToolSet } from "@toolroute/toolroute";
import { type BuiltinContext, builtinTools } from "@toolroute/toolroute/deno";
import { skipWithoutBwrap } from "../../../_helpers/bwrap.ts";
import { makeFixture, SECRET } from "../_fixture.ts";
import { sandboxed, writeTree } from "../search/_search_fixture.ts";
import { encodeFrame } from "../../../../src/deno/sandbox/protocol.ts";
import { concat } from "@std/bytes";
import { forgeAnswers } from "../../sandbox/_host_forge.ts";

async function tools(context: BuiltinContext): Promise<{ tools: ToolSet } & AsyncDisposable> {
  const router = new ToolRouter({ builtins: builtinTools(context) });
  const tools = await router.expose({ builtins: ["bash", "glob", "grep"] });
  return { tools, [Symbol.asyncDispose]: () => router.close() };
}

/** Finds the supervisor (the deno process inside the sandbox) from the model's bash. */
const FIND_SUPERVISOR =
  `for p in /proc/[0-9]*; do if tr '\\0' ' ' < $p/cmdline 2>/dev/null | grep -q '^/.toolroute/deno'; then echo \${p#/proc/}; fi; done | head -1`;

Deno.test({
  name:
    "a model's bash that writes forged frames into the supervisor's output pipe, then kills it, leaves the host up and leaks nothing",
  ignore: skipWithoutBwrap(),
  fn: async () => {
    await using f = await makeFixture();
    await writeTree(f.workspace, { "a.txt": "needle\n" });
    await Deno.symlink(`${f.outside}/secret.txt`, `${f.workspace}/out.txt`);
    await using t = await tools({ ...sandboxed(f.context), commandTimeoutMs: 10_000 });
    assertEquals((await t.tools.call("glob", { pattern: "**/*.txt" })).isError, false);
    // Well-formed forged frames (a listing with paths outside the workspace, then a result) for
    // the ids the host may use, and a frame of absurd length, written into the supervisor's stdout
    // (the pipe to the host) by a process of the same uid.
    const frames: Uint8Array[] = [];
    for (let id = 0; id < 64; id++) {
      frames.push(encodeFrame({ id, stream: 1 }, new TextEncoder().encode("f/etc/passwd\0f..\0")));
      frames.push(encodeFrame({ id, ok: { stopped: null } }));
    }
    frames.push(new Uint8Array(8).fill(0xff));
    // Until s24a the model's bash wrote them (`cat forged.bin > /proc/$S/fd/1`); the supervisor
    // is no longer dumpable, so the test writes them from the host while a command runs.
    const forged = concat(frames);
    const marker = `20.${Date.now() % 100_000}7`;
    const running = t.tools.call("bash", { command: `sleep ${marker}` });
    // The attack ran: every forged byte went into the pipe to the host.
    assert(await forgeAnswers(`sleep ${marker}`, forged), "not written");
    const injected = await running;
    assert(/out of protocol/.test(injected.text), injected.text);
    // Whatever the injection did, the host answers every later call (a result, never a crash),
    // and no result holds outside data.
    const seen: string[] = [injected.text];
    for (let i = 0; i < 3; i++) {
      for (
        const [name, args] of [["glob", { pattern: "**/*" }], ["grep", {
          pattern: "needle|SECRET|root",
        }]] as const
      ) {
        const result = await t.tools.call(name, args);
        seen.push(result.text);
      }
    }
    const killed = await t.tools.call("bash", {
      command: `S=$(${FIND_SUPERVISOR}); kill -9 $S && echo KILLED`,
    });
    seen.push(killed.text);
    const after = await t.tools.call("grep", { pattern: "needle" });
    seen.push(after.text);
    const again = await t.tools.call("grep", { pattern: "needle" });
    assertEquals(again.isError, false, again.text);
    assert(again.text.includes("a.txt"));
    for (const text of seen) {
      assert(!text.includes(SECRET), text);
      assert(!text.includes("/etc/passwd") && !text.includes("root:x:0"), text);
    }
  },
});

Deno.test({
  name:
    "a grep pattern that backtracks catastrophically in JavaScript runs in linear time: the session serves the next call at once",
  ignore: skipWithoutBwrap(),
  fn: async () => {
    await using f = await makeFixture();
    await writeTree(f.workspace, { "evil.txt": `${"a".repeat(40)}!\n${"a".repeat(40)}\n` });
    // Backtracking takes 2^40 steps on this file, past any deadline; the deadline only has to
    // leave room for a loaded machine (CI once took more than 1 s for the whole call).
    await using t = await tools({ ...sandboxed(f.context), commandTimeoutMs: 5000 });
    // The session starts before the timed call: the deadline is the search's alone.
    assertEquals((await t.tools.call("glob", { pattern: "*.txt" })).isError, false);
    // Before issue 25 the supervisor ran it as a JavaScript expression and was stuck until its
    // session was ended; now the host runs it in RE2 and the supervisor only reads files.
    const result = await t.tools.call("grep", { pattern: "^(a+)+$" });
    assertEquals(result.isError, false, result.text);
    assertEquals(JSON.parse(result.text).matches, [
      { path: "evil.txt", line: 2, text: "a".repeat(40) },
    ]);
    const next = await t.tools.call("grep", { pattern: "a!" });
    assertEquals(next.isError, false, next.text);
    assertEquals(JSON.parse(next.text).matches.length, 1);
  },
});

Deno.test({
  name:
    "a .gitignore crafted to be slow and files raced between regular, FIFO and symlink to the outside: calls end in time, nothing outside is read",
  ignore: skipWithoutBwrap(),
  fn: async () => {
    await using f = await makeFixture();
    const tree: Record<string, string> = {};
    for (let i = 0; i < 200; i++) tree[`d${i % 10}/f${i}.txt`] = "needle\n";
    // Thousands of patterns with many stars: every path is matched against all of them.
    tree[".gitignore"] = Array.from({ length: 3000 }, (_, i) => `**/${"*a".repeat(20)}${i}/**`)
      .join("\n");
    await writeTree(f.workspace, tree);
    await using t = await tools({ ...sandboxed(f.context), commandTimeoutMs: 3000 });
    // The model's racer: swaps d0..d9/f*.txt for FIFOs and symlinks to the outside, in a loop.
    const racer = t.tools.call("bash", {
      command: `end=$((SECONDS+2)); n=0; while [ $SECONDS -lt $end ]; do for d in d0 d1 d2; do ` +
        `rm -f $d/f0.txt $d/x.txt; mkfifo $d/f0.txt; ln -sf ${f.outside}/secret.txt $d/x.txt; ` +
        `rm -f $d/f0.txt; echo needle > $d/f0.txt; rm -rf $d.tmp; mv $d $d.tmp; ln -s ${f.outside} $d; ` +
        `rm $d; mv $d.tmp $d; n=$((n+1)); echo $n > .swaps; done; done; echo SWAPS=$n`,
    });
    let calls = 0;
    const texts: string[] = [];
    const times: string[] = [];
    const until = performance.now() + 2500;
    while (performance.now() < until) {
      for (
        const [name, args] of [["glob", { pattern: "**/*" }], ["grep", {
          pattern: "needle|TOP",
        }]] as const
      ) {
        const started = performance.now();
        const result = await t.tools.call(name, args);
        const ms = performance.now() - started;
        calls++;
        texts.push(result.text);
        times.push(`${name} ${Math.round(ms)} ms ${result.isError ? result.code : "ok"}`);
        // A hang is what the attack is after; a loaded machine stretches a call past its 3 s
        // deadline, so the bound only tells an ended call from one that does not end.
        assert(ms < 60_000, `${name} took ${ms} ms`);
      }
    }
    const raced = await racer;
    // Counted in a file as it goes: on a loaded machine the command's own timeout can stop the
    // racer before it prints its total.
    const swaps = Number(await Deno.readTextFile(`${f.workspace}/.swaps`).catch(() => "0"));
    assert(calls > 0 && swaps > 0, `${calls} calls, ${swaps} swaps: ${raced.text}`);
    assert(times.length === calls, times.join(", "));
    for (const text of texts) assert(!text.includes(SECRET), text);
  },
});

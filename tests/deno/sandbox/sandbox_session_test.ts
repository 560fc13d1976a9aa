import { testSession } from "./_test_session.ts";
import { assert, assertEquals, assertMatch } from "@std/assert";
import { ToolError, ToolRouter } from "@toolroute/toolroute";
import { builtinTools, resolveBuiltinContext } from "@toolroute/toolroute/deno";
import { SandboxSessions } from "../../../src/deno/builtins/sandbox/sandbox_sessions.ts";
import { skipWithoutBwrap } from "../../_helpers/bwrap.ts";
import { encodeFrame } from "../../../src/deno/sandbox/protocol.ts";
import { concat } from "@std/bytes";
import { exists } from "@std/fs";
import { forgeAnswers } from "./_host_forge.ts";
import { leftovers } from "../builtins/_bash_fixture.ts";

/** Processes whose command line names `text` (the sandbox's arguments name the workspace). */

/** The processes, as `ps` shows them (for a failure's message). */
async function described(pids: number[]): Promise<string> {
  if (pids.length === 0) return "";
  const { stdout } = await new Deno.Command("ps", {
    args: ["-o", "pid,ppid,stat,etime,args", "-p", pids.join(",")],
    stdin: "null",
  }).output();
  return `left running:\n${new TextDecoder().decode(stdout)}`;
}

async function workspace(): Promise<string> {
  return await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_session_" }));
}

async function exec(
  tools: Awaited<ReturnType<ToolRouter["expose"]>>,
  command: string,
  timeoutMs?: number,
) {
  const result = await tools.call("bash", { command, timeoutMs });
  return { ...result, json: result.isError ? undefined : JSON.parse(result.text) };
}

Deno.test({
  name: "a session keeps /tmp between calls of its context, and another context never sees it",
  ignore: skipWithoutBwrap(),
  async fn() {
    const a = await workspace();
    const b = await workspace();
    await using router = new ToolRouter({ builtins: builtinTools({ workspace: a, bash: true }) });
    const mine = await router.expose({ builtins: ["bash"] });
    const theirs = await router.expose({
      builtins: ["bash"],
      context: { workspace: b, bash: true },
    });
    assertEquals((await exec(mine, "echo kept > /tmp/note; cat /tmp/note")).json.stdout, "kept\n");
    assertEquals((await exec(mine, "cat /tmp/note")).json.stdout, "kept\n");
    const other = await exec(theirs, "cat /tmp/note; ls -a /tmp");
    assertMatch(other.json.stderr, /No such file/);
    assert(!other.json.stdout.includes("note"), other.json.stdout);
    await router.close();
    await Deno.remove(a, { recursive: true });
    await Deno.remove(b, { recursive: true });
  },
});

Deno.test({
  name:
    "a command that kills its supervisor ends only its own session; the next call starts afresh",
  ignore: skipWithoutBwrap(),
  async fn() {
    const a = await workspace();
    const b = await workspace();
    await using router = new ToolRouter({ builtins: builtinTools({ workspace: a, bash: true }) });
    const mine = await router.expose({ builtins: ["bash", "read_file"] });
    const theirs = await router.expose({
      builtins: ["bash"],
      context: { workspace: b, bash: true },
    });
    await exec(theirs, "echo other > /tmp/other");
    // The supervisor is the command's parent's parent (bash -c runs the command): kill it.
    const killed = await exec(mine, "kill -9 $PPID; sleep 1; echo survived");
    assertEquals(killed.isError, true, killed.text);
    assertMatch(killed.text, /The sandbox session ended: its supervisor exited/);
    const again = await exec(mine, "echo fresh; ls /tmp");
    assertEquals(again.json.stdout.startsWith("fresh\n"), true, again.text);
    // The other context's session (and its /tmp) was not touched.
    assertEquals((await exec(theirs, "cat /tmp/other")).json.stdout, "other\n");
    await router.close();
    await Deno.remove(a, { recursive: true });
    await Deno.remove(b, { recursive: true });
  },
});

Deno.test({
  name:
    "a hung supervisor (stopped by a command) ends its session at the deadline, with a clear error",
  ignore: skipWithoutBwrap(),
  async fn() {
    const a = await workspace();
    // 2 s: the same deadline serves the next command, in a fresh session, which on a loaded
    // machine took more than 300 ms for an echo.
    await using router = new ToolRouter({
      builtins: builtinTools({ workspace: a, bash: true, commandTimeoutMs: 2000 }),
    });
    const tools = await router.expose({ builtins: ["bash"] });
    const started = performance.now();
    const hung = await exec(tools, "kill -STOP $PPID; echo stopped");
    assertEquals(hung.code, "timeout", hung.text);
    // The deadline and the session's 5 s to report, with room for a loaded machine.
    assert(performance.now() - started < 30_000);
    const fresh = await exec(tools, "echo fresh");
    assertEquals(fresh.json.stdout, "fresh\n", fresh.text);
    await router.close();
    assertEquals(await leftovers(a), []);
    await Deno.remove(a, { recursive: true });
  },
});

Deno.test({
  name: "an idle session closes after sessionIdleMs, and close() ends every session",
  ignore: skipWithoutBwrap(),
  async fn() {
    const a = await workspace();
    const b = await workspace();
    const router = new ToolRouter({
      // Long enough that a loaded machine's pgrep still finds the session before it idles out.
      builtins: builtinTools({ workspace: a, bash: true }, { sessionIdleMs: 2_000 }),
    });
    const tools = await router.expose({ builtins: ["bash", "read_file"] });
    await exec(tools, "true");
    assert((await leftovers(a, 0)).length > 0, "the session did not start");
    assertEquals(await leftovers(a, 15_000), []);
    const theirs = await router.expose({
      builtins: ["bash"],
      context: { workspace: b, bash: true },
    });
    await exec(theirs, "sleep 30 &");
    assert((await leftovers(b, 0)).length > 0, "the session did not start");
    await router.close();
    // At once: close() returns only once the session's processes are gone.
    const left = await leftovers(b, 0);
    assertEquals(left, [], await described(left));
    await Deno.remove(a, { recursive: true });
    await Deno.remove(b, { recursive: true });
  },
});

Deno.test({
  name: "a session asked for while the sessions close is refused, not started after close()",
  ignore: skipWithoutBwrap(),
  async fn() {
    const ws = await workspace();
    const ctx = resolveBuiltinContext({ workspace: ws, bash: true });
    const sessions = new SandboxSessions();
    // acquire() is past its first check and waits on the workspace's mounts when close() runs.
    const asked = sessions.acquire(ctx);
    await sessions.close();
    // Until the ask settles, no process of a session for this workspace may appear: one started
    // after close() would outlive it (closed only later, when its start saw the close).
    let settled = false;
    const outcome = asked.then((lease) => (lease.release(), "started"), (error) => error)
      .finally(() => settled = true);
    const seen = new Set<number>();
    while (!settled) for (const pid of await leftovers(ws, 0)) seen.add(pid);
    const error = await outcome;
    assert(error instanceof ToolError, `the session was ${String(error)}`);
    assertMatch(error.message, /closed/);
    assertEquals([...seen], [], "a session was started after close()");
    await Deno.remove(ws, { recursive: true });
  },
});

Deno.test({
  name:
    "close() ends a session that was replaced while a command still ran in it, not only the current one",
  ignore: skipWithoutBwrap(),
  async fn() {
    const ws = await workspace();
    const router = new ToolRouter({
      builtins: builtinTools({ workspace: ws, bash: true, protectedPaths: [".git", "secret"] }),
    });
    const tools = await router.expose({ builtins: ["bash"] });
    // The command creates a protected entry, so the next command's mounts differ: its session is
    // retired (closed once its last lease ends), and a fresh one serves the next command.
    let settled = false;
    const long = exec(tools, "echo first > /tmp/mark; touch secret; sleep 60")
      .finally(() => settled = true);
    while (!(await exists(`${ws}/secret`))) {
      // A command that cannot run (no bubblewrap under CI) ends at once: a failure, not a hang.
      if (settled) throw new Error(`the first command ended first: ${(await long).text}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const next = await exec(tools, "cat /tmp/mark");
    assertMatch(next.json.stderr, /No such file/, "the next command ran in the same session");
    assert(!settled, "the first command ended before close() ran");
    await router.close();
    // At once: the retired session's command would otherwise run on after close() returned.
    const left = await leftovers(ws, 0);
    assertEquals(left, [], await described(left));
    assert((await long).isError, "the first command was not stopped");
    await Deno.remove(ws, { recursive: true });
  },
});

Deno.test({
  name:
    "a session's idle time counts from its last use (no timer per use), and a lease held past it keeps it open",
  ignore: skipWithoutBwrap(),
  async fn() {
    const ws = await workspace();
    const ctx = resolveBuiltinContext({ workspace: ws, bash: true });
    const sessions = new SandboxSessions({ idleMs: 1_000 });
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    try {
      const first = await sessions.acquire(ctx);
      first.release();
      // Used again every 100 ms for 1.2 s: past the idle time, never idle for 1 s (a loaded
      // machine's timers come late, so the idle time is ten uses' worth).
      for (let i = 0; i < 12; i++) {
        await sleep(100);
        const again = await sessions.acquire(ctx);
        again.release();
        assert(again.session === first.session, `the session was closed while in use (${i})`);
      }
      // A lease held past the idle time: the session stays open while leased.
      const held = await sessions.acquire(ctx);
      await sleep(1_500);
      assert(!held.session.ended, "a leased session was closed as idle");
      held.release();
      // Unused from now on: it closes once the idle time has passed.
      const deadline = Date.now() + 10_000;
      while (!first.session.ended && Date.now() < deadline) await sleep(50);
      assert(first.session.ended, "the idle session was not closed");
    } finally {
      await sessions.close();
      await Deno.remove(ws, { recursive: true });
    }
  },
});

Deno.test({
  name: "a command in a running session is refused once the host revokes running bash",
  ignore: skipWithoutBwrap(),
  // Named programs: revoking one command of a global run grant leaves the grant (Deno's rule).
  permissions: { run: ["bash", "bwrap"], env: true, read: true, write: true },
  async fn() {
    const ws = await workspace();
    const router = new ToolRouter({ builtins: builtinTools({ workspace: ws, bash: true }) });
    try {
      const tools = await router.expose({ builtins: ["bash"] });
      assertEquals((await exec(tools, "true")).json?.exitCode, 0);
      await Deno.permissions.revoke({ name: "run", command: "bash" });
      const refused = await exec(tools, "touch ran");
      assertEquals(refused.code, "permission_denied");
      assertMatch(refused.text, /--allow-run=bash,bwrap/);
      assert(!(await Deno.lstat(`${ws}/ran`).then(() => true, () => false)), "it ran");
    } finally {
      await router.close();
      await Deno.remove(ws, { recursive: true });
    }
  },
});

Deno.test({
  name: "SIGKILL of the host leaves no process of its sandbox session",
  ignore: skipWithoutBwrap(),
  async fn() {
    const a = await workspace();
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--no-prompt",
        new URL("./_session_host_main.ts", import.meta.url).pathname,
        a,
      ],
      stdout: "piped",
      stderr: "inherit",
      stdin: "null",
    }).spawn();
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    assertEquals((await reader.read()).value, "started\n");
    assert((await leftovers(a, 0)).length > 1, "no session was running");
    child.kill("SIGKILL");
    await child.status;
    await reader.cancel();
    assertEquals(await leftovers(a), []);
    await Deno.remove(a, { recursive: true });
  },
});

Deno.test({
  name:
    "a background process runs in the session: shared /tmp, stdin, logs, and stop ends its group",
  ignore: skipWithoutBwrap(),
  async fn() {
    const a = await workspace();
    const tag = `41.${crypto.getRandomValues(new Uint32Array(1))[0]}`;
    await using router = new ToolRouter({ builtins: builtinTools({ workspace: a, bash: true }) });
    const tools = await router.expose({ builtins: ["bash"] });
    await exec(tools, "echo from-exec > /tmp/note");
    const started = await tools.call("bash", {
      action: "start",
      command: `cat /tmp/note; read x; echo "got $x"; sleep ${tag} & sleep ${tag}`,
    });
    assertEquals(started.isError, false, started.text);
    const { processId } = JSON.parse(started.text);
    const wrote = await tools.call("bash", { action: "write", processId, input: "abc\n" });
    assertEquals(wrote.isError, false, wrote.text);
    let text = "";
    for (let i = 0; i < 100 && !text.includes("got abc"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      text = JSON.parse((await tools.call("bash", { action: "logs", processId })).text).text;
    }
    assertEquals(text, "from-exec\ngot abc\n");
    assert((await leftovers(`sleep ${tag}`, 0)).length > 0, "the process is not running");
    const stopped = JSON.parse((await tools.call("bash", { action: "stop", processId })).text);
    assertEquals([stopped.running, stopped.exitCode], [false, 143]);
    assertEquals(await leftovers(`sleep ${tag}`), []);
    await router.close();
    await Deno.remove(a, { recursive: true });
  },
});

Deno.test({
  name:
    "a command that forges the supervisor's answers ends its session; the host validates every frame",
  ignore: skipWithoutBwrap(),
  async fn() {
    const a = await workspace();
    await using router = new ToolRouter({ builtins: builtinTools({ workspace: a, bash: true }) });
    const tools = await router.expose({ builtins: ["bash", "read_file"] });
    await Deno.writeTextFile(`${a}/real.txt`, "real\n");
    const forgeries = [
      // A length over the limit.
      new Uint8Array([255, 255, 255, 255, 0, 0, 0, 0]),
      // An answer to a request that was never sent.
      encodeFrame({ id: 9999 }),
      // JSON that is not an object.
      concat([new Uint8Array([0, 0, 0, 2, 0, 0, 0, 0]), new TextEncoder().encode("42")]),
    ];
    for (const [index, forge] of forgeries.entries()) {
      // Until s24a the command's shell wrote into its parent's stdout (/proc/$PPID/fd/1); now
      // only the host can (`_host_forge.ts`, and `session_launch_attack_test.ts`).
      const marker = `${20 + index}.${Date.now() % 100_000}${index}`;
      const running = exec(tools, `sleep ${marker}`);
      assert(await forgeAnswers(`sleep ${marker}`, forge), "not written");
      const forged = await running;
      assertEquals(forged.isError, true, `${index}: ${forged.text}`);
      assertMatch(
        forged.text,
        /The sandbox session ended: its supervisor answered out of protocol/,
      );
      // The next call starts a fresh session and reads the real file.
      const read = await tools.call("read_file", { path: "real.txt" });
      assertEquals(JSON.parse(read.text).content, "real\n", `${index}`);
    }
    await router.close();
    await Deno.remove(a, { recursive: true });
  },
});

Deno.test({
  name:
    "reads reuse the running session, and a .git a command made is disabled for the next command and write",
  ignore: skipWithoutBwrap(),
  async fn() {
    const ws = await workspace();
    await Deno.writeTextFile(`${ws}/a.txt`, "a\n");
    await using router = new ToolRouter({ builtins: builtinTools({ workspace: ws, bash: true }) });
    const tools = await router.expose({ builtins: ["bash", "read_file", "glob", "write_file"] });
    // The attack: a command creates a repository (and a folder leading to another) after the
    // session started, then tries to plant a hook in it.
    assertEquals(
      (await exec(tools, "mkdir -p .git/hooks sub/.git")).json
        .exitCode,
      0,
    );
    // Reads in between take the running session as it is.
    assertEquals(
      JSON.parse((await tools.call("read_file", { path: "a.txt" })).text).content,
      "a\n",
    );
    const listed = JSON.parse((await tools.call("glob", { pattern: "**/*.txt" })).text);
    assertEquals(listed.paths, ["a.txt"]);
    const planted = await exec(
      tools,
      "echo evil > .git/hooks/pre-commit; echo evil > sub/.git/config",
    );
    // A .git a command made is renamed aside after it (a planted repository never stays one).
    assertMatch(planted.json.stderr, /Read-only file system|No such file or directory/);
    await assertGone(`${ws}/.git/hooks/pre-commit`);
    await assertGone(`${ws}/sub/.git/config`);
    const written = await tools.call("write_file", { path: "sub/.git/config", content: "x" });
    assertEquals(written.isError, true);
    await assertGone(`${ws}/sub/.git/config`);
    await router.close();
    await Deno.remove(ws, { recursive: true });
  },
});

async function assertGone(path: string): Promise<void> {
  const found = await Deno.lstat(path).then(() => true, () => false);
  assert(!found, `${path} was written`);
}

/**
 * A workspace whose sessions' mounts change with a new protected entry (`.envrc`; a new `.git`
 * would be renamed aside instead), with its context and sessions; disposing it closes the
 * sessions and removes the workspace.
 */
async function protectedEntrySetup() {
  const ws = await workspace();
  const ctx = resolveBuiltinContext({
    workspace: ws,
    bash: true,
    protectedPaths: [".git", ".envrc"],
  });
  const sessions = new SandboxSessions();
  return {
    ws,
    ctx,
    sessions,
    async [Symbol.asyncDispose]() {
      await sessions.close();
      await Deno.remove(ws, { recursive: true });
    },
  };
}

Deno.test({
  name: "acquire() for a read takes the running session; for a write it checks the mounts again",
  ignore: skipWithoutBwrap(),
  async fn() {
    await using setup = await protectedEntrySetup();
    const { ws, ctx, sessions } = setup;
    const first = await sessions.acquire(ctx);
    first.release();
    await Deno.mkdir(`${ws}/.envrc`);
    const read = await sessions.acquire(ctx, { reading: true });
    read.release();
    assert(read.session === first.session, "a read started another session");
    const write = await sessions.acquire(ctx);
    write.release();
    assert(write.session !== first.session, "a write kept the session without the new .envrc");
    assert(first.session.ended);
  },
});

Deno.test({
  name:
    "a session's one deadline timer still ends it at a request's deadline set after a later one",
  ignore: skipWithoutBwrap(),
  async fn() {
    const a = await workspace();
    const session = await testSession(a);
    try {
      const deadline = (timeoutMs: number, why: string) => ({
        timeoutMs,
        onTimeout: () => new ToolError("timeout", why),
      });
      // Answered: its deadline (60 s) leaves the timer set for then.
      await session.request({ op: "ping" }, undefined, deadline(60_000, "ping"));
      const started = performance.now();
      // The supervisor stops itself: nothing answers, the 300 ms deadline must end the session.
      const hung = session.request(
        {
          op: "exec",
          command: "kill -STOP $PPID",
          prefix: "",
          cwd: a,
          env: { PATH: "/usr/bin:/bin" },
          timeoutMs: 60_000,
        },
        undefined,
        deadline(300, "the short deadline"),
      );
      const error = await hung.then(() => undefined, (caught) => caught);
      assert(error instanceof ToolError && error.message === "the short deadline", String(error));
      assert(performance.now() - started < 10_000);
      assert(session.ended);
    } finally {
      await session.close();
      await Deno.remove(a, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "leaseNow() takes the running session without a wait only as acquire() would: never before a start, after a new protected entry only for a read, never after close",
  ignore: skipWithoutBwrap(),
  async fn() {
    await using setup = await protectedEntrySetup();
    const { ws, ctx, sessions } = setup;
    assertEquals(sessions.leaseNow(ctx), undefined);
    assertEquals(sessions.leaseNow(ctx, { reading: true }), undefined);
    const first = await sessions.acquire(ctx);
    first.release();
    for (const reading of [false, true]) {
      const now = sessions.leaseNow(ctx, { reading });
      assert(now?.session === first.session, `no lease for a use that fits (reading ${reading})`);
      now?.release();
    }
    await Deno.mkdir(`${ws}/.envrc`);
    const read = sessions.leaseNow(ctx, { reading: true });
    assert(read?.session === first.session, "a read did not take the running session");
    read?.release();
    assertEquals(
      sessions.leaseNow(ctx),
      undefined,
      "a write took the session without the .envrc",
    );
    assert(!first.session.ended, "leaseNow() changed a session");
    const write = await sessions.acquire(ctx);
    write.release();
    assert(write.session !== first.session && first.session.ended);
    const fresh = sessions.leaseNow(ctx);
    assert(fresh?.session === write.session, "the fresh session's mounts were not taken");
    fresh?.release();
    await sessions.close();
    assertEquals(sessions.leaseNow(ctx, { reading: true }), undefined);
  },
});

Deno.test("a session's start deadline grows with the square of bubblewrap's binds", async () => {
  // bubblewrap's setup grows with the square of its binds: the deadline must too, or a workspace
  // of many repositories never starts. A bubblewrap that never starts shows the deadline given.
  const ws = await workspace();
  try {
    const bin = `${ws}/bin`;
    await Deno.mkdir(bin);
    // The count is written before the fake waits, within the start deadline: a process left
    // behind to write it dies with the session's cgroup where the sandbox has one (as root), and
    // a loaded machine made the write miss the deadlines of 100 and 500 ms. The deadlines below
    // are ten times those, so the count is written even under load.
    await Deno.writeTextFile(
      `${bin}/bwrap`,
      `#!/bin/bash\nprintf '%s\\n' "$@" | grep -c -- --ro-bind-try > ${ws}/tmp.$$ && ` +
        `mv ${ws}/tmp.$$ ${ws}/binds.$$\nexec sleep 60\n`,
    );
    await Deno.chmod(`${bin}/bwrap`, 0o755);
    const { SandboxSession } = await import(
      "../../../src/deno/sandbox/sandbox_session.ts"
    );
    const start = (binds: number) =>
      SandboxSession.start({
        mounts: {
          workspace: { source: ws, dest: ws },
          readOnlyRoots: [],
          protectedPaths: Array.from({ length: binds }, (_, i) => ({
            source: `${ws}/r${i}/.git`,
            dest: `${ws}/r${i}/.git`,
          })),
        },
        path: `${bin}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`,
        startTimeoutMs: 1000,
      }).then(() => "started", (error: Error) => error.message);
    assertMatch(await start(0), /did not start within 1000 ms/);
    // 1,000 binds: twice 500, so 1000 ms × (1 + 2²).
    assertMatch(await start(1000), /did not start within 5000 ms/);
    // The fake bubblewrap got them (plus the system directories and /etc files).
    assert(Math.max(...await bindCounts(ws, 1000)) >= 1000);
  } finally {
    await Deno.remove(ws, { recursive: true });
  }
});

/**
 * The bind counts the fake bubblewraps in `dir` wrote (`binds.<pid>`), once one reaches `least`
 * or 30 s passed.
 */
async function bindCounts(dir: string, least: number): Promise<number[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const counts: number[] = [];
    for await (const entry of Deno.readDir(dir)) {
      if (entry.name.startsWith("binds.")) {
        counts.push(Number(await Deno.readTextFile(`${dir}/${entry.name}`)));
      }
    }
    if (counts.some((count) => count >= least) || Date.now() > deadline) return counts;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

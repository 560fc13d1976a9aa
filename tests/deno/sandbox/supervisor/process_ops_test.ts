import { testSession } from "../_test_session.ts";
import { assert, assertEquals, assertMatch } from "@std/assert";
import { processOps } from "../../../../src/deno/sandbox/supervisor/process_ops.ts";
import type { SupervisorContext } from "../../../../src/deno/sandbox/supervisor/supervisor_context.ts";
import type { SandboxSession } from "../../../../src/deno/sandbox/sandbox_session.ts";
import { DEFAULT_LIMITS } from "../../../../src/deno/builtins/context_limits.ts";
import { withResourceLimits } from "../../../../src/deno/sandbox/resource_limits.ts";
import { skipWithoutBwrap } from "../../../_helpers/bwrap.ts";
import { leftovers, uniqueSleep } from "../../builtins/_bash_fixture.ts";

/**
 * The process operations with a context of fakes: frames are collected, nothing is listed or
 * killed (`kill` and `processIds` do nothing), and `cgroups` are the given files. Only `exec` is
 * used here: it spawns `bash` and nothing else on the host.
 */
function fakeOps(cgroups: string[]) {
  const frames: Record<string, unknown>[] = [];
  const context: SupervisorContext = {
    send: (header) => (frames.push(header), Promise.resolve()),
    processIds: () => [],
    kill: () => {},
    cgroups,
  };
  return { ops: processOps(context), frames };
}

async function execFake(cgroups: string[], command: string, cwd: string) {
  const { ops, frames } = fakeOps(cgroups);
  await ops.exec!(
    { op: "exec", id: 1, command, prefix: "", cwd, env: {}, timeoutMs: 10_000 },
    new Uint8Array(),
  );
  return frames.at(-1)!.exit as { code: number };
}

Deno.test("processOps() exec has the command's shell write 0 into every cgroup file before the command runs", async () => {
  const dir = await Deno.makeTempDir({ prefix: "toolroute_ops_" });
  try {
    await Deno.writeTextFile(`${dir}/a`, "");
    await Deno.writeTextFile(`${dir}/b`, "");
    // The command sees both files written already (by its own shell, before anything else).
    const exit = await execFake(
      [`${dir}/a`, `${dir}/b`],
      `[ "$(cat '${dir}/a' '${dir}/b')" = "$(printf '0\\n0')" ] && touch ran`,
      dir,
    );
    assertEquals(exit.code, 0);
    assert((await Deno.stat(`${dir}/ran`)).isFile);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("processOps() exec does not run a command whose shell cannot enter the cgroups", async () => {
  const dir = await Deno.makeTempDir({ prefix: "toolroute_ops_" });
  try {
    await Deno.writeTextFile(`${dir}/a`, "");
    const { ops, frames } = fakeOps([`${dir}/a`, `${dir}/missing/b`]);
    await ops.exec!(
      { op: "exec", id: 1, command: "touch ran", prefix: "", cwd: dir, env: {}, timeoutMs: 10_000 },
      new Uint8Array(),
    );
    const exit = frames.at(-1)!.exit as { code: number };
    assertEquals(exit.code, 126);
    const stderr = frames.filter((frame) => frame.stream === 2);
    assert(stderr.length > 0, "no message on stderr");
    await Deno.stat(`${dir}/ran`).then(
      () => Promise.reject(new Error("the command ran")),
      (error) => assert(error instanceof Deno.errors.NotFound),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

const options = { timeoutMs: 10_000, onTimeout: () => new Error("timeout") as never };

/** Runs a command with `exec` in a session, its output as text. */
async function exec(session: SandboxSession, command: string, cwd: string) {
  let stdout = "";
  let stderr = "";
  const decoder = new TextDecoder();
  const answer = await session.request(
    { op: "exec", command, prefix: "", cwd, env: { PATH: "/usr/bin:/bin" }, timeoutMs: 10_000 },
    undefined,
    {
      ...options,
      onStream: (stream, bytes) =>
        stream === 1 ? stdout += decoder.decode(bytes) : stderr += decoder.decode(bytes),
    },
  );
  return { exit: answer.header.exit as { code: number }, stdout, stderr };
}

async function startSession(workspace: string, limited: boolean): Promise<SandboxSession> {
  return await testSession(workspace, {
    wrap: limited ? withResourceLimits(DEFAULT_LIMITS) : undefined,
  });
}

Deno.test({
  name:
    "an exec's background children are killed when it ends, while the session lives on (with the limits' cgroup and without)",
  ignore: skipWithoutBwrap(),
  async fn() {
    const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_ops_" }));
    for (const limited of [true, false]) {
      const session = await startSession(workspace, limited);
      try {
        const tag = uniqueSleep();
        // Children on the pipes, detached from them, in their own session, and reparented.
        const result = await exec(
          session,
          `sleep ${tag} & sleep ${tag} >/dev/null 2>&1 & setsid sleep ${tag} >/dev/null 2>&1 & ` +
            `(sleep ${tag} >/dev/null 2>&1 &); sleep 0.2; pgrep -c -x sleep`,
          workspace,
        );
        assertEquals(result.exit.code, 0, result.stderr);
        // The attack ran: four sleeps were running when the command ended.
        assertEquals(result.stdout, "4\n");
        assertEquals(await leftovers(`sleep ${tag}`), [], `limited: ${limited}`);
        // The session still serves.
        assertEquals((await exec(session, "echo ok", workspace)).stdout, "ok\n");
      } finally {
        await session.close();
      }
    }
    await Deno.remove(workspace, { recursive: true });
  },
});

Deno.test({
  name:
    "a session command's shell is in the limited cgroups before its command runs, and so is every process it starts",
  ignore: skipWithoutBwrap(),
  async fn() {
    const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_ops_" }));
    const session = await startSession(workspace, true);
    try {
      const result = await exec(
        session,
        "cat /proc/$$/cgroup; echo --; sh -c 'cat /proc/self/cgroup'; echo --; " +
          "(sleep 0.1 & cat /proc/$!/cgroup; wait)",
        workspace,
      );
      assertEquals(result.exit.code, 0, result.stderr);
      const parts = result.stdout.split("--\n");
      assertEquals(parts.length, 3, result.stdout);
      assert(session.limitsKind !== undefined, "the wrapper reported no limits");
      if (session.limitsKind === "none") return;
      // cgroup v1: the pids and memory hierarchies; v2: the one unified line. The sandbox's
      // cgroup namespace starts at the session's "sup" cgroup, so "cmd" shows as "/../cmd".
      const limited = session.limitsKind === "cgroup1" ? /^\d+:(pids|memory):/ : /^0::/;
      for (const part of parts) {
        const lines = part.split("\n").filter((line) => limited.test(line));
        assertEquals(lines.length, session.limitsKind === "cgroup1" ? 2 : 1, part);
        for (const line of lines) assertMatch(line, /:\/\.\.\/cmd$/);
      }
    } finally {
      await session.close();
      await Deno.remove(workspace, { recursive: true });
    }
  },
});

import { testSession } from "./_test_session.ts";
// Attacks on the sandbox's resource limits (cgroups): a session that starts while another one is
// between making its cgroups and entering them, and commands that try to leave the limits.
import { assert, assertEquals, assertMatch } from "@std/assert";
import { DEFAULT_LIMITS } from "../../../../src/deno/builtins/context_limits.ts";
import { withResourceLimits } from "../../../../src/deno/builtins/sandbox/resource_limits.ts";
import type { SandboxSession } from "../../../../src/deno/builtins/sandbox/sandbox_session.ts";
import { skipWithoutBwrap } from "../../../_helpers/bwrap.ts";
import { ToolRouter, type ToolSet } from "@toolroute/toolroute";
import { builtinTools } from "@toolroute/toolroute/deno";

const V1_PIDS = "/sys/fs/cgroup/pids";

/** The hierarchies where the wrapper makes sessions' cgroups on this machine (v1 pids, or v2). */
function hierarchy(): string | undefined {
  for (const dir of ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"]) {
    try {
      const sub = Deno.readTextFileSync(`${dir}/cgroup.subtree_control`);
      if (/\bpids\b/.test(sub) && /\bmemory\b/.test(sub)) return dir;
    } catch {
      // Not v2 here.
    }
  }
  try {
    Deno.statSync(`${V1_PIDS}/tasks`);
    return V1_PIDS;
  } catch {
    return undefined;
  }
}

function startSession(ws: string): Promise<SandboxSession> {
  return testSession(ws, { wrap: withResourceLimits(DEFAULT_LIMITS) });
}

async function exec(session: SandboxSession, ws: string, command: string) {
  let stdout = "";
  const answer = await session.request(
    { op: "exec", command, prefix: "", cwd: ws, env: {}, timeoutMs: 5000 },
    undefined,
    {
      timeoutMs: 10_000,
      onTimeout: () => new Error("timeout") as never,
      onStream: (stream, bytes) => stream === 1 && (stdout += new TextDecoder().decode(bytes)),
    },
  );
  return { code: (answer.header.exit as { code: number }).code, stdout };
}

Deno.test({
  name:
    "a session's start does not sweep the cgroups of a session that is still starting (made, not yet entered), only those of ended ones",
  ignore: skipWithoutBwrap(),
  async fn() {
    const root = hierarchy();
    if (root === undefined) return; // No writable cgroup here: rlimits only, nothing to sweep.
    const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_limits_" }));
    // A session of a live wrapper (this process stands in for it) caught between `mkdir` and
    // writing its pid into sup: sup and cmd are empty, as a leftover's are.
    const starting = `${root}/toolroute-${Deno.pid}-1`;
    // A leftover of an ended wrapper (a pid that has exited).
    const gone = new Deno.Command("true").spawn();
    const deadPid = gone.pid;
    await gone.status;
    const leftover = `${root}/toolroute-${deadPid}-2`;
    let swept = 0;
    for (const dir of [starting, leftover]) {
      Deno.mkdirSync(dir);
      Deno.mkdirSync(`${dir}/sup`);
      Deno.mkdirSync(`${dir}/cmd`);
    }
    const session = await startSession(ws);
    try {
      const exists = (dir: string) => {
        try {
          return Deno.statSync(dir).isDirectory;
        } catch {
          return false;
        }
      };
      if (!exists(leftover)) swept++;
      assert(swept > 0, "the sweep ran (the ended session's leftover is gone)");
      assert(exists(`${starting}/sup`), "the starting session's cgroups were swept");
      assert(exists(`${starting}/cmd`));
      assert(session.limitsKind !== "none");
    } finally {
      await session.close();
      for (const dir of [starting, leftover]) {
        for (const path of [`${dir}/sup`, `${dir}/cmd`, dir]) {
          try {
            Deno.removeSync(path);
          } catch {
            // Gone already.
          }
        }
      }
      await Deno.remove(ws, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "a command cannot leave the limited cgroup: not by writing to the bound file, not through /sys, not in a background child; moving the supervisor in leaves the session working",
  ignore: skipWithoutBwrap(),
  async fn() {
    const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_limits_" }));
    const session = await startSession(ws);
    try {
      if (session.limitsKind === "none") return;
      let attempts = 0;
      // Write every pid seen, 0 and 1 into the bound files, and try the hierarchy itself.
      const tries = await exec(
        session,
        ws,
        `n=0; for f in /.toolroute/cg/*; do for p in 1 $(ls /proc | grep -E '^[0-9]+$'); do
           echo $p > "$f" 2>/dev/null; n=$((n+1)); done; done
         for f in /sys/fs/cgroup/pids/tasks /sys/fs/cgroup/cgroup.procs /sys/fs/cgroup/pids/cgroup.procs; do
           echo $$ > $f 2>/dev/null && echo "moved via $f"; n=$((n+1)); done
         (sleep 0.1; grep -E 'pids|memory|^0::' /proc/self/cgroup) & wait
         echo "tries=$n"; grep -E 'pids|memory|^0::' /proc/self/cgroup`,
      );
      attempts = Number(/tries=(\d+)/.exec(tries.stdout)?.[1] ?? 0);
      assert(attempts > 0, tries.stdout);
      assert(!tries.stdout.includes("moved via"), tries.stdout);
      for (
        const line of tries.stdout.split("\n").filter((l) => /cgroup|pids|memory|^0::/.test(l))
      ) {
        if (/:(pids|memory|):/.test(line)) assertMatch(line, /:\/\.\.\/cmd$|:\/$|\/cmd$/);
      }
      // Every command still runs in the limited cgroup afterwards, and the session still works.
      const after = await exec(session, ws, "grep -E 'pids|^0::' /proc/self/cgroup");
      assertEquals(after.code, 0);
      assertMatch(after.stdout, /cmd$/m);
    } finally {
      await session.close();
      await Deno.remove(ws, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "variables bash acts on at its start (BASH_ENV, SHELLOPTS with PS4) that name a workspace file run nothing before the command enters its limits",
  ignore: skipWithoutBwrap(),
  async fn() {
    const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_bash_env_" }));
    const names = ["BASH_ENV", "SHELLOPTS", "PS4"];
    Deno.env.set("BASH_ENV", `${ws}/.bashenv`);
    Deno.env.set("SHELLOPTS", "xtrace");
    Deno.env.set("PS4", `$(grep pids /proc/self/cgroup >> ${ws}/ps4.txt)+ `);
    try {
      await using router = new ToolRouter({
        builtins: builtinTools({
          workspace: ws,
          env: ["PATH", ...names],
          bash: { sandbox: "bwrap", limits: { processes: 64, memoryMiB: 256 } },
        }),
      });
      const tools = await router.expose({ builtins: ["bash", "write_file"] });
      // The model writes the file BASH_ENV names (it is in the workspace).
      await tools.call("write_file", {
        path: ".bashenv",
        content: "grep pids /proc/self/cgroup >> cg.txt; ulimit -u >> cg.txt\n",
      });
      const run = await tools.call("bash", { command: 'echo "$BASH_ENV"' });
      const limitsKind = await limitsOf(tools);
      const seen = await Deno.readTextFile(`${ws}/cg.txt`).catch(() => "");
      const traced = await Deno.readTextFile(`${ws}/ps4.txt`).catch(() => "");
      // (bash takes PS4 from the environment only when not run as root: there it may not trace.)
      assert(seen.length > 0, `the attack ran (BASH_ENV was used): ${run.text}`);
      // Still honoured: the file was sourced and the variable is the command's.
      assertEquals(JSON.parse(run.text).stdout, `${ws}/.bashenv\n`);
      // Sourced inside the limits: the cmd cgroup and the process limit of 64.
      assertMatch(seen, /^64$/m, seen);
      if (limitsKind) {
        for (const line of `${seen}${traced}`.split("\n").filter((l) => l.includes("pids"))) {
          assertMatch(line, /\/cmd$/, `ran outside the limited cgroup: ${seen}${traced}`);
        }
      }
    } finally {
      for (const name of names) Deno.env.delete(name);
      await Deno.remove(ws, { recursive: true });
    }
  },
});

/** Whether commands of the tool set's session are in a limited cgroup. */
async function limitsOf(tools: ToolSet): Promise<boolean> {
  const out = JSON.parse(
    (await tools.call("bash", { command: "grep pids /proc/self/cgroup" })).text,
  );
  return /\/cmd$/m.test(out.stdout);
}

Deno.test({
  name:
    "closing a session while a background fork bomb runs in it leaves neither processes nor cgroups behind",
  ignore: skipWithoutBwrap(),
  async fn() {
    const root = hierarchy();
    const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_limits_" }));
    const list = () => {
      if (root === undefined) return new Set<string>();
      return new Set(
        [...Deno.readDirSync(root)].map((entry) => entry.name)
          .filter((name) => name.startsWith("toolroute-")),
      );
    };
    const before = list();
    const session = await startSession(ws);
    const ours = [...list()].filter((name) => !before.has(name));
    try {
      if (session.limitsKind === "none" || root === undefined) return;
      assertEquals(ours.length, 1, `new cgroups: ${ours}`);
      // A bounded bomb in the background (it stops at the limit and its own 3 s).
      const bomb = session.request(
        {
          op: "exec",
          command: "end=$((SECONDS+3)); b() { [ $SECONDS -lt $end ] && { b | b & }; }; b; sleep 3",
          prefix: "ulimit -HS -u 64 2>/dev/null; ",
          cwd: ws,
          env: {},
          timeoutMs: 5000,
        },
        undefined,
        {
          timeoutMs: 10_000,
          onTimeout: () => new Error("timeout") as never,
          onStream: () => {},
        },
      ).catch((error) => String(error));
      await new Promise((resolve) => setTimeout(resolve, 500));
      const tasks = Deno.readTextFileSync(
        `${root}/${ours[0]}/cmd/${root === V1_PIDS ? "tasks" : "cgroup.procs"}`,
      )
        .split("\n").filter((line) => line !== "").length;
      assert(
        tasks > 1,
        `the bomb ran (${tasks} tasks in cmd): ${
          JSON.stringify(await Promise.race([bomb, "running"]))
        }`,
      );
      await session.close();
      await bomb;
    } finally {
      await session.close();
    }
    // The wrapper removes its cgroups once its processes are gone (a moment after the close): a
    // removed cgroup had no process left in it.
    let left = true;
    for (let i = 0; i < 50 && left; i++) {
      left = ours.some((name) => list().has(name));
      if (left) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert(!left, `cgroups left behind: ${ours}`);
    await Deno.remove(ws, { recursive: true });
  },
});

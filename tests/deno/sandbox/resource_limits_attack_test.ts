import { testSession } from "./_test_session.ts";
// Attacks on the sandbox's resource limits (cgroups): a session that starts while another one is
// between making its cgroups and entering them, and commands that try to leave the limits.
import { assert, assertEquals, assertMatch } from "@std/assert";
import { DEFAULT_LIMITS } from "../../../src/deno/builtins/context_limits.ts";
import { withResourceLimits } from "../../../src/deno/sandbox/resource_limits.ts";
import type { SandboxSession } from "../../../src/deno/sandbox/sandbox_session.ts";
import { skipWithoutBwrap } from "../../_helpers/bwrap.ts";
import { sandboxedBash } from "../../_helpers/sandboxed_bash.ts";
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
        // Absolute paths: a host-side shell (any cwd) that sourced it would leave its lines too.
        content: `grep pids /proc/self/cgroup >> ${ws}/cg.txt; ulimit -u >> ${ws}/cg.txt\n`,
      });
      const run = await tools.call("bash", { command: 'echo "$BASH_ENV"' });
      const limitsKind = await limitsOf(tools);
      const seen = await Deno.readTextFile(`${ws}/cg.txt`).catch(() => "");
      const traced = await Deno.readTextFile(`${ws}/ps4.txt`).catch(() => "");
      // (bash takes PS4 from the environment only when not run as root: there it may not trace.)
      assert(seen.length > 0, `the attack ran (BASH_ENV was used): ${run.text}`);
      // Still honoured: the file was sourced and the variable is the command's.
      assertEquals(JSON.parse(run.text).stdout, `${ws}/.bashenv\n`);
      // Sourced inside the limits only: the cmd cgroup and the process limit of 64 on every line
      // (the workspace's disk measure, a host-side shell, once sourced it with the host's limit).
      assertMatch(seen, /^64$/m, seen);
      for (const line of seen.split("\n").filter((l) => /^\d+$/.test(l))) {
        assertEquals(line, "64", `sourced outside the sandbox's limits: ${seen}`);
      }
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

const MiB = 1024 * 1024;

async function sh(tools: ToolSet, command: string) {
  const result = await tools.call("bash", { command, timeoutMs: 20_000 });
  return JSON.parse(result.text) as { exitCode: number; stdout: string; stderr: string };
}

Deno.test({
  name:
    "a session's commands cannot fill the disk: files stop at fileMiB, fallocate past the size is refused, /tmp, home and /dev/shm stop at tmpMiB, /dev is read-only",
  ignore: skipWithoutBwrap(),
  async fn() {
    await using box = await sandboxedBash({
      bash: { sandbox: "bwrap", limits: { fileMiB: 4, tmpMiB: 8 } },
    }, { prefix: "toolroute_disk_" });
    const { tools, ws } = box;
    // The attack of the report: a 2 GiB fallocate in the workspace, and its variant that keeps
    // the file's size (FALLOC_FL_KEEP_SIZE, where RLIMIT_FSIZE does not look).
    const fall = await sh(
      tools,
      "echo ran; fallocate -l 2G big; echo big=$?; touch keep; fallocate -n -l 2G keep 2>&1; echo keep=$?",
    );
    assertMatch(fall.stdout, /^ran\n/);
    assertMatch(fall.stdout, /big=(?!0\n)\d+/);
    assertMatch(fall.stdout, /(unsupported|not supported)[\s\S]*keep=1/);
    assertEquals((await Deno.stat(`${ws}/big`)).size, 0);
    // Blocks held (512-byte units): nothing was allocated past the size either.
    assert(((await Deno.stat(`${ws}/keep`)).blocks ?? 0) < 16, "no blocks kept");
    // io_uring (whose fallocate seccomp does not see) cannot even be set up (checked where the
    // sandbox has python3; ptrace_filter_test.ts checks the filter itself everywhere).
    const uring = await sh(
      tools,
      `command -v python3 >/dev/null || { echo no-python; exit; }; python3 -c 'import ctypes, os; libc = ctypes.CDLL(None, use_errno=True); print(libc.syscall(425, 8, ctypes.create_string_buffer(120)), os.strerror(ctypes.get_errno()))'`,
    );
    if (uring.stdout !== "no-python\n") {
      assertEquals(uring.stdout, "-1 Operation not permitted\n", uring.stderr);
    }
    // A plain write stops at the file limit: the write ran up to it.
    const dd = await sh(tools, "dd if=/dev/zero of=fill bs=1M count=64 2>&1; echo dd=$?");
    assertMatch(dd.stdout, /dd=(?!0\n)\d+/);
    assertEquals((await Deno.stat(`${ws}/fill`)).size, 4 * MiB);
    // Each tmpfs is full at tmpMiB, and the rest of /dev takes no file.
    for (const dir of ["/tmp", "/.toolroute/home", "/dev/shm"]) {
      const tmp = await sh(
        tools,
        `for i in 1 2 3 4; do dd if=/dev/zero of=${dir}/f$i bs=1M count=3 2>/dev/null; done; cat ${dir}/f? | wc -c`,
      );
      // The writes ran until the file system was full: 12 MiB tried, at most 8 MiB held.
      const bytes = Number(tmp.stdout.trim());
      // (The home also holds the supervisor runtime's cache.)
      assert(bytes >= 6 * MiB && bytes <= 8 * MiB, `${dir} holds ${bytes} bytes: ${tmp.stderr}`);
    }
    const dev = await sh(tools, "{ echo x > /dev/planted; } 2>&1; echo dev=$?");
    assertMatch(dev.stdout, /Read-only file system[\s\S]*dev=1/);
  },
});

Deno.test({
  name: "a background process that spins is stopped at backgroundCpuSeconds",
  ignore: skipWithoutBwrap(),
  async fn() {
    await using box = await sandboxedBash({
      bash: { sandbox: "bwrap", limits: { backgroundCpuSeconds: 1 } },
    }, { prefix: "toolroute_cpu_" });
    const { tools, ws } = box;
    const started = JSON.parse(
      (await tools.call("bash", {
        action: "start",
        command: "echo spinning > spun; while :; do :; done",
      })).text,
    ) as { processId: string };
    let info: { running: boolean; exitCode: number | null } = { running: true, exitCode: null };
    // A failsafe far past one CPU second, not a measure of it.
    for (let i = 0; i < 600 && info.running; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      info = JSON.parse(
        (await tools.call("bash", { action: "status", processId: started.processId })).text,
      );
    }
    // It ran (its marker is there) and the kernel stopped it: SIGXCPU (24), or SIGKILL (9) at
    // the hard limit.
    assertEquals(await Deno.readTextFile(`${ws}/spun`), "spinning\n");
    assertEquals(info.running, false, "the spinning process was not stopped");
    assert(info.exitCode === 128 + 24 || info.exitCode === 128 + 9, String(info.exitCode));
  },
});

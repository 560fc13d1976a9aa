import { testSession } from "./_test_session.ts";
import { assert, assertEquals, assertMatch } from "@std/assert";
import { ToolRouter } from "@toolroute/toolroute";
import { builtinTools } from "@toolroute/toolroute/deno";
import { DEFAULT_LIMITS } from "../../../src/deno/builtins/context_limits.ts";
import { limitPrefix, withResourceLimits } from "../../../src/deno/sandbox/resource_limits.ts";
import { skipWithoutBwrap } from "../../_helpers/bwrap.ts";
import { sandboxedBash } from "../../_helpers/sandboxed_bash.ts";

/** The host's process count (ps, not /proc: Deno reads /proc only under --allow-all). */
async function hostProcesses(): Promise<number> {
  const { stdout } = await new Deno.Command("ps", { args: ["-e", "-o", "pid="], stdin: "null" })
    .output();
  return new TextDecoder().decode(stdout).split("\n").filter((line) => line.trim()).length;
}

/** Samples the host's process count and free memory every 50 ms while `run` runs. */
async function sampled<T>(run: () => Promise<T>) {
  const counts: number[] = [];
  const free: number[] = [];
  let going = true;
  const sampler = (async () => {
    while (going) {
      counts.push(await hostProcesses());
      free.push(Deno.systemMemoryInfo().available);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  const before = await hostProcesses();
  const result = await run();
  going = false;
  await sampler;
  return { result, before, maxProcesses: Math.max(...counts), minFree: Math.min(...free) };
}

Deno.test("limitPrefix() sets hard process, data, file size and CPU limits the command cannot raise", () => {
  const limits = { ...DEFAULT_LIMITS, processes: 64, memoryMiB: 256, fileMiB: 8 };
  assertEquals(
    limitPrefix(limits, 2500),
    "ulimit -HS -u 64 -d 262144 -f 8192 -t 3 2>/dev/null; ",
  );
  // A background process has no deadline: its CPU seconds are the session's setting.
  assertEquals(
    limitPrefix({ ...limits, backgroundCpuSeconds: 90 }),
    "ulimit -HS -u 64 -d 262144 -f 8192 -t 90 2>/dev/null; ",
  );
});

Deno.test({
  name: "a fork bomb fails inside the session while the host keeps serving",
  ignore: skipWithoutBwrap(),
  async fn() {
    const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_limits_" }));
    await Deno.writeTextFile(`${ws}/a.txt`, "still here\n");
    await using router = new ToolRouter({
      builtins: builtinTools({
        workspace: ws,
        commandTimeoutMs: 4000,
        bash: { sandbox: "bwrap", limits: { processes: 64, memoryMiB: 512 } },
      }),
    });
    const tools = await router.expose({ builtins: ["bash", "read_file"] });
    const { result, before, maxProcesses } = await sampled(async () => {
      const bomb = tools.call("bash", { command: "b() { b | b & }; b; sleep 3; echo done" });
      // The host answers other calls meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const read = await tools.call("read_file", { path: "a.txt" });
      return { bomb: await bomb, read };
    });
    console.log(`fork bomb: host processes ${before} before, at most ${maxProcesses} during`);
    assertEquals(JSON.parse(result.read.text).content, "still here\n");
    assertEquals(result.bomb.isError, false, result.bomb.text);
    // The bomb ran (the shell reported failed forks) and was bounded.
    assert(/fork|Resource temporarily unavailable/.test(JSON.parse(result.bomb.text).stderr));
    assert(maxProcesses - before < 200, `${maxProcesses - before} more processes`);
    const after = await tools.call("bash", { command: "echo ok" });
    assertEquals(JSON.parse(after.text).stdout, "ok\n");
    await router.close();
    await Deno.remove(ws, { recursive: true });
  },
});

Deno.test({
  name: "a memory hog fails inside the session with a clear result while the host keeps serving",
  ignore: skipWithoutBwrap(),
  async fn() {
    await using box = await sandboxedBash({
      commandTimeoutMs: 10_000,
      bash: { sandbox: "bwrap", limits: { processes: 64, memoryMiB: 256 } },
    }, { prefix: "toolroute_limits_" });
    const { tools } = box;
    const { result, minFree } = await sampled(() =>
      tools.call("bash", {
        command: "python3 -c 'b = bytearray(1 << 30); print(len(b))' 2>&1 || " +
          "perl -e '$x = \"x\" x (1 << 30); print length($x)'",
      })
    );
    console.log(`memory hog: host memory available at least ${minFree >> 20} MiB during`);
    const out = JSON.parse(result.text);
    assert(out.exitCode !== 0, result.text);
    assert(!out.stdout.includes("1073741824"), result.text);
    assertEquals(
      JSON.parse((await tools.call("bash", { command: "echo ok" })).text).stdout,
      "ok\n",
    );
  },
});

Deno.test({
  name: "a fork bomb started in the background stays bounded by the session's limits",
  ignore: skipWithoutBwrap(),
  async fn() {
    await using box = await sandboxedBash({
      bash: { sandbox: "bwrap", limits: { processes: 64, memoryMiB: 512 } },
    }, { prefix: "toolroute_limits_" });
    const { tools } = box;
    const { result, before, maxProcesses } = await sampled(async () => {
      const started = JSON.parse(
        (await tools.call("bash", { action: "start", command: "b() { b | b & }; b; sleep 2" }))
          .text,
      );
      await new Promise((resolve) => setTimeout(resolve, 2500));
      const answer = await tools.call("bash", { command: "echo still serving" });
      const logs = await tools.call("bash", { action: "logs", processId: started.processId });
      await tools.call("bash", { action: "stop", processId: started.processId });
      return { answer, logs: JSON.parse(logs.text).text as string };
    });
    console.log(`background fork bomb: host processes ${before} before, at most ${maxProcesses}`);
    assertEquals(JSON.parse(result.answer.text).stdout, "still serving\n");
    // The bomb ran into the limit.
    assert(/fork|Resource temporarily unavailable/.test(result.logs), result.logs);
    assert(maxProcesses - before < 200, `${maxProcesses - before} more processes`);
  },
});

Deno.test({
  name:
    "a session that starts leaves another running session's limited cgroup in place (its commands keep their limits)",
  ignore: skipWithoutBwrap(),
  async fn() {
    const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_limits_" }));
    const start = () => testSession(ws, { wrap: withResourceLimits(DEFAULT_LIMITS) });
    const first = await start();
    // The second start sweeps the leftovers of ended sessions: the first one's cgroup is not one,
    // although no command of it runs (its cmd cgroup is empty).
    const second = await start();
    try {
      assert(first.limitsKind !== undefined && first.limitsKind === second.limitsKind);
      let stdout = "";
      const answer = await first.request(
        {
          op: "exec",
          command: "cat /proc/$$/cgroup",
          prefix: "",
          cwd: ws,
          env: {},
          timeoutMs: 5000,
        },
        undefined,
        {
          timeoutMs: 10_000,
          onTimeout: () => new Error("timeout") as never,
          onStream: (stream, bytes) => stream === 1 && (stdout += new TextDecoder().decode(bytes)),
        },
      );
      assertEquals((answer.header.exit as { code: number }).code, 0, stdout);
      if (first.limitsKind !== "none") assertMatch(stdout, /:\/\.\.\/cmd$/m);
    } finally {
      await first.close();
      await second.close();
      await Deno.remove(ws, { recursive: true });
    }
  },
});

/**
 * The sandbox session's warm shell at three paces, in one run: `exec true` through a session
 * request (production prefix and limits' cgroup), cold (`warm: false`: a fresh `bash -c`) and
 * warm (`warm: true`), against a raw `Deno.Command("bash", ["-c", "true"]).output()` on the host.
 *
 * - alternating: raw and each session call one after the other (as `sandbox_session_bench.ts`):
 *   the warm shell starts while the raw side runs;
 * - back to back: three calls of one kind in a row, the last two timed: the next shell has only
 *   the host's turnaround to start (since it starts after 10 ms without a request, warm calls
 *   back to back run cold: see `docs/sandbox.md`);
 * - spaced: 20 ms idle before each call (an agent's pace is seconds).
 *
 * Kinds alternate round by round (order reversed every round). Prints medians and p99 and their
 * ratios to raw at the same pace, and the load.
 *
 * Run: deno run --no-prompt -A --config bench/deno.json bench/warm_shell_bench.ts [rounds]
 *
 * @module
 */
import { SandboxSession } from "../src/deno/builtins/sandbox/sandbox_session.ts";
import { DEFAULT_LIMITS } from "../src/deno/builtins/context_limits.ts";
import { limitPrefix, withResourceLimits } from "../src/deno/builtins/sandbox/resource_limits.ts";

const ROUNDS = Number(Deno.args[0] ?? 200);
const loadavg = async () =>
  (await Deno.readTextFile("/proc/loadavg").catch(() => "?")).split(" ")[0];
const loadBefore = await loadavg();
const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_warm_bench_" }));
const session = await SandboxSession.start({
  mounts: { workspace: { source: workspace, dest: workspace }, readOnlyRoots: [] },
  path: Deno.env.get("PATH") ?? "/usr/bin:/bin",
  startTimeoutMs: 10_000,
  wrap: withResourceLimits(DEFAULT_LIMITS),
});
// As the bash tool sends it (the tool's four variables).
const env: Record<string, string> = {};
for (const name of ["PATH", "HOME", "LANG", "TERM"]) {
  const value = Deno.env.get(name);
  if (value !== undefined) env[name] = value;
}
const prefix = limitPrefix(DEFAULT_LIMITS, 30_000);
let warmRuns = 0;
const exec = async (warm: boolean) => {
  const answer = await session.request(
    { op: "exec", command: "true", prefix, cwd: workspace, env, timeoutMs: 30_000, warm },
    undefined,
    { timeoutMs: 35_000, onTimeout: () => new Error("timeout") as never, onStream: () => {} },
  );
  if ((answer.header.exit as { warm?: boolean }).warm === true) warmRuns++;
};
const kinds: Record<string, () => Promise<unknown>> = {
  raw: () => new Deno.Command("bash", { args: ["-c", "true"], stdin: "null" }).output(),
  cold: () => exec(false),
  warm: () => exec(true),
};
const paces = ["alternating", "back to back", "spaced"];
const times: Record<string, Record<string, number[]>> = {};
for (const pace of paces) times[pace] = { raw: [], cold: [], warm: [] };
const timed = async (pace: string, kind: string) => {
  const started = performance.now();
  await kinds[kind]();
  times[pace][kind].push(performance.now() - started);
};
const idle = () => new Promise((resolve) => setTimeout(resolve, 20));

for (let i = 0; i < 5; i++) for (const kind of ["raw", "cold", "warm"]) await kinds[kind]();
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? ["cold", "warm"] : ["warm", "cold"];
  for (const kind of order) await timed("alternating", "raw"), await timed("alternating", kind);
  for (const kind of round % 2 === 0 ? ["raw", ...order] : [...order, "raw"]) {
    await kinds[kind]();
    await timed("back to back", kind);
    await timed("back to back", kind);
  }
  for (const kind of round % 2 === 0 ? ["raw", ...order] : [...order, "raw"]) {
    await idle();
    await timed("spaced", kind);
  }
}

const at = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
console.log(
  `${ROUNDS} rounds, medians / p99, one run, load ${loadBefore} before, ${await loadavg()} after, ` +
    `${warmRuns} warm runs\n`,
);
console.log("| pace | raw | cold | warm | cold / raw | warm / raw (medians, p99) |");
console.log("|---|---|---|---|---|---|");
for (const pace of paces) {
  const [raw, cold, warm] = ["raw", "cold", "warm"].map((kind) =>
    times[pace][kind].sort((a, b) => a - b)
  );
  const cell = (v: number[]) => `${at(v, 0.5).toFixed(2)} / ${at(v, 0.99).toFixed(2)} ms`;
  const ratio = (v: number[]) =>
    `${(at(v, 0.5) / at(raw, 0.5)).toFixed(2)}×, ${(at(v, 0.99) / at(raw, 0.99)).toFixed(2)}×`;
  console.log(
    `| ${pace} | ${cell(raw)} | ${cell(cold)} | ${cell(warm)} | ${ratio(cold)} | ${ratio(warm)} |`,
  );
}
await session.close();
await Deno.remove(workspace, { recursive: true });

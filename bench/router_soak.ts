/**
 * Soak of the library as a host keeps it for days: one `ToolRouter` with built-ins (file tools
 * only, nothing sandboxed), function tools (`_soak_tools.ts`), a policy that asks before
 * `soak_guarded` and counts `soak_echo` per user in a one-second window, a result budget that
 * cuts `soak_big` (its kept results bounded at 1 MiB), the circuit breaker and result cache hooks, and an `McpGateway` with a global
 * loopback server and one server of each user's own (`_era_bench_server.ts`, 2026-07-28 for half
 * the users, 2025 for the rest). Every round `users` new users come once (expose, calls of each
 * kind, a read of the cut result, a call that times out) and never return; then each user's
 * servers are removed as a host does when a user leaves (`clearUser`) unless `--keep-users`.
 * After each round the process collects garbage and prints heap used and RSS.
 *
 * Run: `deno run --config bench/deno.json --no-prompt -A --v8-flags=--expose-gc
 * bench/router_soak.ts [rounds=8] [users=500] [snapshot-folder] [--keep-users]`. With a folder,
 * a V8 heap snapshot is written there after round 2 and after the last.
 *
 * @module
 */
import v8 from "node:v8";
import { startBenchServer } from "./_bench_server.ts";
import { ToolRouter } from "../mod.ts";
import { McpGateway } from "../src/core/mcp/mod.ts";
import { circuitBreakerHook, resultCacheHook } from "../src/core/hooks/mod.ts";
import { builtinTools } from "../src/deno/mod.ts";
import { big, echo, guarded } from "./_soak_tools.ts";

const numbers = Deno.args.filter((arg) => !arg.startsWith("--"));
const rounds = Number(numbers[0] ?? 8);
const perRound = Number(numbers[1] ?? 500);
const snapshots = numbers[2];
const keepUsers = Deno.args.includes("--keep-users");
const CONCURRENCY = 16;
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("run with --v8-flags=--expose-gc");

const upstream = await startBenchServer("./_era_bench_server.ts", { args: ["--json"] });
const workspace = await Deno.makeTempDir({ prefix: "toolroute_router_soak_" });
await Deno.writeTextFile(`${workspace}/notes.txt`, "soak\n");
const gateway = new McpGateway({
  servers: { up: { url: upstream.line } },
  allowedHosts: ["127.0.0.1"],
});
const router = new ToolRouter({
  builtins: builtinTools({ workspace, bash: false }),
  functions: [echo, big, guarded],
  gateway,
  // Kept results level off at 1 MiB: what grows past it is not theirs.
  resultBudget: { tokens: 100, maxStoredBytes: 1_048_576 },
  hooks: [circuitBreakerHook(), resultCacheHook()],
  policy: {
    allow: ["*"],
    ask: ["soak_guarded"],
    default: "allow",
    limits: [{ match: "soak_echo", max: 1_000, windowMs: 1_000 }],
  },
});
const met = { cut: 0, read: 0, asked: 0, timedOut: 0, failures: 0 };

async function visit(userId: string, index: number): Promise<void> {
  gateway.addUserServer(userId, "mine", {
    url: upstream.line,
    ...(index % 2 === 0 ? { protocol: "2026-07-28" } : {}),
  });
  const tools = await router.expose({
    userId,
    builtins: ["read_file"],
    functions: ["soak_echo", "soak_big", "soak_guarded"],
    mcpServers: ["up", "mine"],
  });
  const results = [
    await tools.call("soak_echo", { text: "hi" }),
    await tools.call("read_file", { path: "notes.txt" }),
    await tools.call("echo", { text: "hi" }),
  ];
  met.failures += results.filter((result) => result.isError).length;
  const asked = await tools.call("soak_guarded", { text: "hi" });
  if (asked.code === "approval_required") met.asked++;
  const cut = await tools.call("soak_big", { seed: userId });
  if (cut.resultHandle !== undefined) {
    met.cut++;
    const page = await tools.call("read_result", { handle: cut.resultHandle });
    if (!page.isError) met.read++;
  }
  // A deadline too short for the upstream: a transient failure (the circuit breaker counts it).
  const late = await tools.call("whoami", {}, { timeoutMs: 1 });
  if (late.code === "timeout") met.timedOut++;
  if (!keepUsers) await gateway.clearUser(userId);
}

async function measure(label: string): Promise<void> {
  for (let i = 0; i < 3; i++) {
    gc!();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const { heapUsed, rss } = Deno.memoryUsage();
  const mb = (bytes: number) => (bytes / 1_048_576).toFixed(1).padStart(6);
  console.log(
    `${label.padEnd(9)} heap ${mb(heapUsed)} MB  rss ${mb(rss)} MB  ${JSON.stringify(met)}`,
  );
}

const started = performance.now();
await measure("start");
for (let round = 0; round < rounds; round++) {
  const queue = Array.from({ length: perRound }, (_, i) => round * perRound + i);
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    for (let user = queue.shift(); user !== undefined; user = queue.shift()) {
      await visit(`user-${user}`, user);
    }
  }));
  await measure(`round ${round + 1}`);
  if (snapshots !== undefined && (round === 1 || round === rounds - 1)) {
    v8.writeHeapSnapshot(`${snapshots}/round_${round + 1}.heapsnapshot`);
  }
}
console.log(
  `${rounds} rounds of ${perRound} new users in ${
    ((performance.now() - started) / 1000).toFixed(0)
  } s`,
);
await router.close();
await gateway.close();
await upstream.close();
await Deno.remove(workspace, { recursive: true });

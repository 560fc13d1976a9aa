/**
 * The sandbox session's cost, side by side in one run: each sandboxed tool (bash `bwrap`: file
 * tools and `exec` in the context's long-lived sandbox session) against the same tool in process
 * (bash off) or a raw `Deno.Command("bash", ["-c", "true"])`, and the start of a session. Prints
 * medians and p99 of each and their ratios, the load, and the machine's price of a bare pipe round
 * trip (what one sandboxed call adds at least). The two sides alternate round by round
 * (one call each per round, the order swapped every round), so load changes hit both alike.
 * Ratios only: the machine is shared.
 *
 * Run: deno run --no-prompt -A bench/sandbox_session_bench.ts [rounds]
 *
 * @module
 */
import { ToolRouter } from "../mod.ts";
import { builtinTools } from "../src/deno/mod.ts";

const ROUNDS = Number(Deno.args[0] ?? 200);

/**
 * The machine's price of one cross-process round trip: a byte to `cat` and back through pipes,
 * median of `rounds`, in µs. A sandboxed call makes one such round trip (two process wake-ups);
 * on a VM whose idle CPUs halt at once it varies from run to run, and so do the ratios.
 */
async function pipeRoundTrip(rounds: number): Promise<number> {
  const child = new Deno.Command("cat", { stdin: "piped", stdout: "piped" }).spawn();
  const writer = child.stdin.getWriter();
  const reader = child.stdout.getReader({ mode: "byob" });
  let buffer = new Uint8Array(64);
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    await writer.write(new Uint8Array([10]));
    const { value } = await reader.read(buffer);
    times.push(performance.now() - started);
    buffer = new Uint8Array(value!.buffer);
  }
  await writer.close();
  await child.status;
  times.sort((a, b) => a - b);
  return times[times.length >> 1] * 1000;
}

const loadBefore = (await Deno.readTextFile("/proc/loadavg").catch(() => "?")).split(" ")[0];
const pipeBefore = await pipeRoundTrip(500);
const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_session_bench_" }));
const workspace = `${base}/ws`;
await Deno.mkdir(workspace);
await Deno.writeTextFile(`${workspace}/small.txt`, "a\nb\nc\n");
await Deno.writeTextFile(
  `${workspace}/patch.txt`,
  Array.from({ length: 500 }, (_, i) => `line ${i}`).join("\n") + "\n",
);
const names = ["read_file", "write_file", "apply_patch", "bash"];
const inProcess = new ToolRouter({ builtins: builtinTools({ workspace }) });
const sandboxed = new ToolRouter({ builtins: builtinTools({ workspace, bash: true }) });
const plain = await inProcess.expose({ builtins: names });
const boxed = await sandboxed.expose({ builtins: names });

let flip = false;
const patch = () => {
  flip = !flip;
  const [from, to] = flip ? ["line 10", "LINE 10"] : ["LINE 10", "line 10"];
  return JSON.stringify({
    patch: `*** Begin Patch\n*** Update File: patch.txt\n@@\n-${from}\n+${to}\n*** End Patch`,
  });
};

const at = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const ms = (value: number) => `${value.toFixed(2)} ms`;

const rows: string[] = [];
/** Round by round: each round times one call of each side, in alternating order. */
async function pair(name: string, base: () => Promise<unknown>, box: () => Promise<unknown>) {
  for (let i = 0; i < 5; i++) await base(), await box(); // warm-up (and the session's start)
  const a: number[] = [];
  const b: number[] = [];
  const time = async (fn: () => Promise<unknown>, into: number[]) => {
    const started = performance.now();
    await fn();
    into.push(performance.now() - started);
  };
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) await time(base, a), await time(box, b);
    else await time(box, b), await time(base, a);
  }
  a.sort((x, y) => x - y);
  b.sort((x, y) => x - y);
  rows.push(
    `| ${name} | ${ms(at(a, 0.5))} / ${ms(at(a, 0.99))} | ${ms(at(b, 0.5))} / ${
      ms(at(b, 0.99))
    } | ${(at(b, 0.5) / at(a, 0.5)).toFixed(2)}× | ${(at(b, 0.99) / at(a, 0.99)).toFixed(2)}× |`,
  );
}

const read = '{"path":"small.txt"}';
const write = '{"path":"out.txt","content":"hello\\n"}';
await pair(
  "read_file",
  () => plain.invoke("read_file", read),
  () => boxed.invoke("read_file", read),
);
await pair(
  "write_file",
  () => plain.invoke("write_file", write),
  () => boxed.invoke("write_file", write),
);
await pair(
  "apply_patch, one file",
  () => plain.invoke("apply_patch", patch()),
  () => boxed.invoke("apply_patch", patch()),
);
await pair(
  'bash `exec true` (baseline: raw Deno.Command("bash", ["-c", "true"]))',
  () => new Deno.Command("bash", { args: ["-c", "true"], stdin: "null" }).output(),
  () => boxed.invoke("bash", '{"command":"true"}'),
);

// A session's start: a fresh context each time (its own session), to the first answer.
const starts: number[] = [];
for (let i = 0; i < 20; i++) {
  const dir = `${base}/start${i}`;
  await Deno.mkdir(dir);
  const router = new ToolRouter({ builtins: builtinTools({ workspace: dir, bash: true }) });
  const tools = await router.expose({ builtins: ["bash"] });
  const started = performance.now();
  await tools.invoke("bash", '{"command":"true"}');
  starts.push(performance.now() - started);
  await router.close();
}
starts.sort((a, b) => a - b);

const load = (await Deno.readTextFile("/proc/loadavg").catch(() => "?")).split(" ")[0];
const pipeAfter = await pipeRoundTrip(500);
console.log(
  `${ROUNDS} calls each, medians / p99, one run, load ${loadBefore} before, ${load} after; ` +
    `a bare pipe round trip (host to \`cat\` and back) ${pipeBefore.toFixed(0)} µs before, ` +
    `${pipeAfter.toFixed(0)} µs after\n`,
);
console.log("| operation | in process / raw | sandboxed (session) | ratio of medians | of p99 |");
console.log("|---|---|---|---|---|");
for (const row of rows) console.log(row);
console.log(
  `\nsession start (first exec of a new context): median ${ms(at(starts, 0.5))}, p99 ${
    ms(at(starts, 0.99))
  } (20 starts)`,
);
await inProcess.close();
await sandboxed.close();
await Deno.remove(base, { recursive: true });

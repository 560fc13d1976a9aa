/**
 * Built-in tool costs, through the real router (`toolSet.invoke`):
 * - read_file of lines 1-100 from a 1 GB sparse file (target under 20 ms, under 64 MB peak
 *   memory growth; the memory figure is measured separately and printed before the run);
 * - apply_patch of 50 hunks on a 5 000-line file (target under 20 ms).
 * bash groups live in `bench/bash_bench.ts`; add further groups at the end of this file.
 *
 * Run: deno bench --config bench/deno.json --no-prompt -A bench/builtins_bench.ts
 */
import { ToolRouter } from "../mod.ts";
import { builtinTools } from "../src/deno/mod.ts";

const base = await Deno.makeTempDir({ prefix: "toolroute_bench_" });
globalThis.addEventListener("unload", () => Deno.removeSync(base, { recursive: true }));
const workspace = `${base}/ws`;
await Deno.mkdir(workspace);
const router = new ToolRouter({ builtins: builtinTools({ workspace }) });
const tools = await router.expose({ builtins: ["read_file", "apply_patch"] });

// A 1 GB file: 200 text lines, then a hole that reads as NUL bytes.
const huge = `${workspace}/huge.log`;
await Deno.writeTextFile(
  huge,
  Array.from({ length: 200 }, (_, i) => `line ${i + 1} ${"x".repeat(60)}`).join("\n") + "\n",
);
await Deno.truncate(huge, 1024 ** 3);
const readArgs = '{"path":"huge.log","startLine":1,"endLine":100}';

// A 5 000-line file and a Codex patch of 50 hunks, one every 100 lines, 3 lines of context.
const source = Array.from({ length: 5000 }, (_, i) => `const value${i} = ${i};`);
const sourceText = source.join("\n") + "\n";
const hunks = Array.from({ length: 50 }, (_, h) => {
  const at = h * 100 + 50;
  return [
    "@@",
    ...source.slice(at - 3, at).map((line) => ` ${line}`),
    `-${source[at]}`,
    `+const value${at} = -${at};`,
    ...source.slice(at + 1, at + 4).map((line) => ` ${line}`),
  ].join("\n");
});
const patch = `*** Begin Patch\n*** Update File: big.ts\n${hunks.join("\n")}\n*** End Patch\n`;
const patchArgs = JSON.stringify({ patch });

await printMemory();

Deno.bench({
  name: "read_file lines 1-100 of a 1 GB sparse file",
  group: "read_file",
  baseline: true,
  async fn() {
    const result = await tools.call("read_file", readArgs);
    if (result.isError) throw new Error(result.text);
  },
});

Deno.bench({
  name: "raw Deno.open + one 64 KiB read (floor)",
  group: "read_file",
  async fn() {
    using file = await Deno.open(huge);
    await file.read(new Uint8Array(64 * 1024));
  },
});

Deno.bench({
  name: "apply_patch 50 hunks on a 5 000-line file",
  group: "apply_patch",
  baseline: true,
  async fn(b) {
    await Deno.writeTextFile(`${workspace}/big.ts`, sourceText);
    b.start();
    const result = await tools.call("apply_patch", patchArgs);
    b.end();
    if (result.isError) throw new Error(result.text);
  },
});

/** Peak RSS growth over 50 reads of the sparse file, sampled after each call. */
async function printMemory(): Promise<void> {
  await tools.call("read_file", readArgs); // warm up: compile, open caches
  const before = Deno.memoryUsage();
  let peak = before.rss;
  for (let i = 0; i < 50; i++) {
    await tools.call("read_file", readArgs);
    peak = Math.max(peak, Deno.memoryUsage().rss);
  }
  const after = Deno.memoryUsage();
  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
  console.log(
    `read_file 1 GB sparse, 50 calls: peak RSS growth ${mb(peak - before.rss)} MB, ` +
      `heap ${mb(before.heapUsed)} -> ${mb(after.heapUsed)} MB (target: under 64 MB growth)`,
  );
}

/**
 * What the stdio servers' bubblewrap sandbox costs, side by side in one run: the same stdio
 * server (`tests/_fixtures/stdio_server.ts` under `deno run`) unconfined (`sandbox: "none"`)
 * and sandboxed (the default sandbox, its script's folder read-only).
 *
 * - **Cold start**: a new gateway, connect (spawn, initialize, list) and the first `echo` call,
 *   then close; the two candidates alternate in a shuffled order each round, median of `starts`.
 * - **Per call**: one warm gateway per candidate, `echo` called once on each per round in a
 *   shuffled order, median of `rounds`; the ratio sandboxed / unconfined.
 *
 * Targets: a cold start at most 150 ms more sandboxed, a call at most 1.1×.
 *
 * Run: `deno run --config bench/deno.json --no-prompt -A bench/stdio_sandbox.ts [starts=15] [rounds=1000]`
 *
 * @module
 */
import { dirname, fromFileUrl } from "@std/path";
import { ToolRouter } from "../mod.ts";
import type { McpStdioSandboxSetting, McpStdioServerConfig } from "../src/core/mcp/mod.ts";
import { createDenoGateway } from "../src/deno/mcp/deno_gateway.ts";

const [starts, rounds] = [Number(Deno.args[0] ?? 15), Number(Deno.args[1] ?? 1000)];
const REPO = dirname(dirname(fromFileUrl(import.meta.url)));
const FIXTURE = `${REPO}/tests/_fixtures/stdio_server.ts`;
const DENO_DIR = Deno.env.get("DENO_DIR") || `${Deno.env.get("HOME")}/.cache/deno`;

type Candidate = "unconfined" | "sandboxed";
const SETTINGS: Record<Candidate, McpStdioSandboxSetting> = {
  unconfined: "none",
  sandboxed: { readOnly: [REPO] },
};

function server(sandbox: McpStdioSandboxSetting): McpStdioServerConfig {
  return {
    command: Deno.execPath(),
    args: ["run", "--no-prompt", "--config", `${REPO}/deno.json`, FIXTURE],
    env: { DENO_DIR },
    sandbox,
  };
}

async function open(candidate: Candidate) {
  const gateway = createDenoGateway({ servers: { s: server(SETTINGS[candidate]) } });
  const toolSet = await new ToolRouter({ gateway }).expose({ mcpServers: ["s"] });
  if (toolSet.missing.length > 0) {
    throw new Error(`${candidate} did not start: ${JSON.stringify(gateway.status())}`);
  }
  const call = async () => {
    const result = await toolSet.call("echo", { text: "hi" });
    if (result.isError || result.text !== "hi") throw new Error(JSON.stringify(result));
  };
  return { gateway, call };
}

const shuffled = <T>(items: T[]): T[] =>
  items.map((item) => [Math.random(), item] as const).sort((a, b) => a[0] - b[0]).map(([, i]) => i);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

const CANDIDATES: Candidate[] = ["unconfined", "sandboxed"];

// Warm-up: the first start of each compiles the fixture and fills the caches.
for (const candidate of CANDIDATES) {
  const { gateway, call } = await open(candidate);
  await call();
  await gateway.close();
}

const cold: Record<Candidate, number[]> = { unconfined: [], sandboxed: [] };
for (let round = 0; round < starts; round++) {
  for (const candidate of shuffled(CANDIDATES)) {
    const started = performance.now();
    const { gateway, call } = await open(candidate);
    await call();
    cold[candidate].push(performance.now() - started);
    await gateway.close();
  }
}

const warm = { unconfined: await open("unconfined"), sandboxed: await open("sandboxed") };
const calls: Record<Candidate, number[]> = { unconfined: [], sandboxed: [] };
for (let round = 0; round < 50; round++) for (const c of CANDIDATES) await warm[c].call();
for (let round = 0; round < rounds; round++) {
  for (const candidate of shuffled(CANDIDATES)) {
    const started = performance.now();
    await warm[candidate].call();
    calls[candidate].push(performance.now() - started);
  }
}
for (const c of CANDIDATES) await warm[c].gateway.close();

const [coldNone, coldBox] = [median(cold.unconfined), median(cold.sandboxed)];
const [callNone, callBox] = [median(calls.unconfined), median(calls.sandboxed)];
const load = Deno.loadavg().map((value) => value.toFixed(2)).join(" ");
console.log(`stdio server sandbox, ${starts} cold starts and ${rounds} calls each (load ${load})`);
console.log(
  `cold start (connect + first call): unconfined ${coldNone.toFixed(0)} ms, sandboxed ` +
    `${coldBox.toFixed(0)} ms: +${(coldBox - coldNone).toFixed(0)} ms (target: +150 ms at most)`,
);
console.log(
  `per call (echo): unconfined ${(callNone * 1000).toFixed(0)} µs, sandboxed ` +
    `${(callBox * 1000).toFixed(0)} µs: ${(callBox / callNone).toFixed(2)}× (target: 1.1× at most)`,
);

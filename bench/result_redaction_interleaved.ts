/**
 * What keeping a connection's credentials out of results costs per call, measured interleaved
 * (each round runs every candidate once, in a shuffled order, so load from other processes hits
 * all alike): `toolOutputOf` as a remote call's result goes through it, without redaction (the
 * result conversion alone, as before session 24), with the redaction of a connection that has no
 * secret (the common case), and with a bearer header configured, for a one-block text result (the
 * gateway bench's `echo`), a result with structured content and a resource link, and a result
 * that echoes the token (the copy).
 *
 * Run: `deno run --config bench/deno.json --no-prompt bench/result_redaction_interleaved.ts [rounds=2000] [batch=200]`;
 * prints the median and p99 of one call (a batch's time / batch), and each candidate's extra
 * cost over the same result converted without redaction.
 *
 * @module
 */

import { type McpResultParts, toolOutputOf } from "../src/core/mcp/mcp_call.ts";
import { Redactor } from "../src/core/mcp/gateway/calls/redactor.ts";

const rounds = Number(Deno.args[0] ?? 2000);
const batch = Number(Deno.args[1] ?? 200);
const token = "bench-0123456789abcdef0123456789abcdef";
const url = "http://127.0.0.1:9/mcp";
const none = new Redactor({ url });
const header = new Redactor({ url, headers: { authorization: `Bearer ${token}` } });
const hook = (redactor: Redactor) => (result: McpResultParts) => redactor.result(result);
const options = { maxResultChars: 100_000, maxMediaBytes: 10_000_000 };
const withNone = { ...options, redact: hook(none) };
const withHeader = { ...options, redact: hook(header) };

// Fresh objects per call, as a parsed answer is.
const echo = () => ({ content: [{ type: "text", text: "hi" }] });
const rich = () => ({
  content: [
    { type: "text", text: "Found 3 rows for the query, the first is shown below.".repeat(4) },
    { type: "resource_link", uri: "https://crm.example/rows/1", name: "row 1", title: "Row 1" },
  ],
  structuredContent: { rows: [{ id: 1, name: "Ada", tags: ["a", "b"] }, { id: 2, name: "Bo" }] },
});
const leak = () => ({ content: [{ type: "text", text: `denied for Bearer ${token}` }] });

const candidates: Record<string, () => unknown> = {
  "echo, no redaction": () => toolOutputOf(echo(), "echo", options),
  "echo, no secret": () => toolOutputOf(echo(), "echo", withNone),
  "echo, bearer header": () => toolOutputOf(echo(), "echo", withHeader),
  "rich, no redaction": () => toolOutputOf(rich(), "rich", options),
  "rich, no secret": () => toolOutputOf(rich(), "rich", withNone),
  "rich, bearer header": () => toolOutputOf(rich(), "rich", withHeader),
  "leak, no redaction": () => toolOutputOf(leak(), "leak", options),
  "leak, bearer header (copied)": () => toolOutputOf(leak(), "leak", withHeader),
};
const names = Object.keys(candidates);
const times = new Map(names.map((name) => [name, [] as number[]]));
let seed = 0x5eed;
const random = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const order = [...names];
let sink = 0;
for (let round = -200; round < rounds; round++) { // 200 warm-up rounds
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  for (const name of order) {
    const run = candidates[name];
    const started = performance.now();
    for (let i = 0; i < batch; i++) sink += (run() as { content: unknown[] }).content.length;
    if (round >= 0) times.get(name)!.push((performance.now() - started) * 1000 / batch);
  }
}
const quantile = (values: number[], q: number) =>
  values.sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))];
for (const name of names) {
  const values = times.get(name)!;
  const base = times.get(`${name.split(",")[0]}, no redaction`)!;
  const [median, p99] = [quantile(values, 0.5), quantile(values, 0.99)];
  const extra = median - quantile(base, 0.5);
  console.log(
    `${name.padEnd(30)} median ${median.toFixed(3)} µs  (${extra < 0 ? "" : "+"}${
      extra.toFixed(3)
    } µs)  p99 ${p99.toFixed(3)} µs`,
  );
}
if (sink === 0) console.log("unreachable");

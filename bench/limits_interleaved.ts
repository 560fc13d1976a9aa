/**
 * What policy limits cost a call, measured interleaved: each round times a batch of calls of each
 * variant (rotating the order), so load from other processes on a shared machine hits all alike.
 * Targets: a call under a policy without limits costs what it did before limits existed (the same
 * ratio to "no policy" as in docs/policy.md, "Cost"); a limit check on `MemoryStore` adds at most
 * 5 µs at the median.
 *
 * Run: `deno run --no-prompt bench/limits_interleaved.ts [rounds=100]`; prints medians.
 *
 * @module
 */
import { z } from "zod";
import { defineTool, type Policy, ToolRouter, type ToolSet } from "../mod.ts";

const rounds = Number(Deno.args[0] ?? 100);
const batch = 500;
const forecast = defineTool({
  name: "forecast",
  description: "Forecast",
  input: z.object({ city: z.string(), days: z.number().int().min(1).max(14) }).strict(),
  run: async ({ city, days }) => {
    await null;
    return { city, days, sky: "clear" };
  },
});
const HOUR = 3_600_000;
const huge = Number.MAX_SAFE_INTEGER;
const expose = (policy?: Policy) =>
  new ToolRouter({ functions: [forecast], policy }).expose({
    functions: ["forecast"],
    userId: "alice",
  });
const variants: [string, ToolSet][] = [
  ["no policy", await expose()],
  ["policy, no limits", await expose({ allow: ["forecast"] })],
  [
    "limits on other tools only",
    await expose({
      allow: ["forecast"],
      limits: [{ match: "send_email", max: 1, windowMs: HOUR }, {
        match: "server:billing",
        max: 5,
      }],
    }),
  ],
  [
    "one limit on the tool (MemoryStore, per user, never reached)",
    await expose({
      allow: ["forecast"],
      limits: [{ match: "forecast", max: huge, windowMs: HOUR }],
    }),
  ],
  [
    "one per-run budget on the tool (MemoryStore)",
    await expose({ allow: ["forecast"], limits: [{ match: "forecast", max: huge }] }),
  ],
];
const times: number[][] = variants.map(() => []);
for (let round = 0; round < rounds; round++) {
  for (let k = 0; k < variants.length; k++) {
    const index = (round + k) % variants.length;
    const toolSet = variants[index][1];
    const started = performance.now();
    for (let i = 0; i < batch; i++) await toolSet.invoke("forecast", '{"city":"Oslo","days":3}');
    times[index].push((performance.now() - started) / batch);
  }
}
const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
const base = median(times[0]);
const policy = median(times[1]);
for (const [k, [name]] of variants.entries()) {
  const value = median(times[k]);
  console.log(
    `${name}: ${(value * 1000).toFixed(2)} µs per call, ${(value / base).toFixed(2)}× no policy, ${
      ((value - policy) * 1000).toFixed(2)
    } µs over "policy, no limits"`,
  );
}

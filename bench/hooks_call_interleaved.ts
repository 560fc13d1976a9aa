/**
 * A call through three no-op hooks (each with `before` and `after`) against the same call with
 * no hooks, measured interleaved: each round times a batch of calls of each variant (rotating
 * the order), so load from other processes hits both alike. The target: at most 3 µs more per
 * call at the median.
 *
 * Run: `deno run --no-prompt bench/hooks_call_interleaved.ts [rounds=200]`; prints medians.
 *
 * @module
 */
import { z } from "zod";
import { defineTool, type ToolHook, ToolRouter, type ToolSet } from "../mod.ts";

const rounds = Number(Deno.args[0] ?? 200);
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
const noop = (name: string): ToolHook => ({
  name,
  before: () => undefined,
  after: () => undefined,
});
const variants: [string, ToolSet][] = [
  ["no hooks", await new ToolRouter({ functions: [forecast] }).expose({ functions: ["forecast"] })],
  [
    "three no-op hooks",
    await new ToolRouter({ functions: [forecast], hooks: [noop("a"), noop("b"), noop("c")] })
      .expose({ functions: ["forecast"] }),
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
for (const [k, [name]] of variants.entries()) {
  const value = median(times[k]);
  console.log(
    `${name}: ${(value * 1000).toFixed(2)} µs per call, +${((value - base) * 1000).toFixed(2)} µs`,
  );
}

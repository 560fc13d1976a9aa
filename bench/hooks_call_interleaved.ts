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
import { ToolRouter, type ToolSet } from "../mod.ts";
import type { ToolHook } from "../src/core/hooks/mod.ts";
import { interleave } from "./_interleave.ts";
import { forecast, FORECAST_ARGS } from "./_forecast_tool.ts";

const rounds = Number(Deno.args[0] ?? 200);
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
const medians = await interleave(
  variants.map(([name, toolSet]) =>
    [name, () => toolSet.invoke("forecast", FORECAST_ARGS)] as const
  ),
  { rounds },
);
const base = medians[0].medianUs;
for (const { name, medianUs } of medians) {
  console.log(`${name}: ${medianUs.toFixed(2)} µs per call, +${(medianUs - base).toFixed(2)} µs`);
}

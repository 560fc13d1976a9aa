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
import { type Policy, ToolRouter, type ToolSet } from "../mod.ts";
import { interleave } from "./_interleave.ts";
import { forecast, FORECAST_ARGS } from "./_forecast_tool.ts";

const rounds = Number(Deno.args[0] ?? 100);
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
const medians = await interleave(
  variants.map(([name, toolSet]) =>
    [name, () => toolSet.invoke("forecast", FORECAST_ARGS)] as const
  ),
  { rounds },
);
const base = medians[0].medianUs;
const policy = medians[1].medianUs;
for (const { name, medianUs } of medians) {
  console.log(
    `${name}: ${medianUs.toFixed(2)} µs per call, ${(medianUs / base).toFixed(2)}× no policy, ${
      (medianUs - policy).toFixed(2)
    } µs over "policy, no limits"`,
  );
}

/**
 * A call through a 200-rule policy against the same call with no policy, measured interleaved:
 * each round times a batch of calls of each variant (rotating the order), so load from other
 * processes on a shared machine hits all alike. The target is a median ratio ≤ 1.2.
 *
 * Run: `deno run --no-prompt bench/policy_call_interleaved.ts [rounds=200]`; prints medians.
 *
 * @module
 */
import { ToolRouter, type ToolSet } from "../mod.ts";
import { interleave } from "./_interleave.ts";
import { forecast, FORECAST_ARGS } from "./_forecast_tool.ts";

const rounds = Number(Deno.args[0] ?? 200);
const rules = Array.from({ length: 200 }, (_, i) => {
  const forms = [`tool_${i}`, `other_${i}_*`, `bash(cmd${i} *)`, `write_file(dir${i}/**)`];
  return forms[i % forms.length];
});
const variants: [string, ToolSet][] = [
  [
    "no policy",
    await new ToolRouter({ functions: [forecast] }).expose({ functions: ["forecast"] }),
  ],
  [
    "200 rules, none with arguments about the tool",
    await new ToolRouter({
      functions: [forecast],
      policy: {
        deny: rules.slice(0, 70),
        ask: rules.slice(70, 130),
        allow: [...rules.slice(130), "forecast"],
        default: "deny",
      },
    }).expose({ functions: ["forecast"] }),
  ],
  [
    "200 rules, one argument rule about the tool",
    await new ToolRouter({
      functions: [forecast],
      policy: { deny: [...rules.slice(0, 199), "forecast(city=Atlantis)"] },
    }).expose({ functions: ["forecast"] }),
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
  console.log(`${name}: ${medianUs.toFixed(2)} µs per call, ${(medianUs / base).toFixed(2)}×`);
}

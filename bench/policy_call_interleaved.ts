/**
 * A call through a 200-rule policy against the same call with no policy, measured interleaved:
 * each round times a batch of calls of each variant (rotating the order), so load from other
 * processes on a shared machine hits all alike. The target is a median ratio ≤ 1.2.
 *
 * Run: `deno run --no-prompt bench/policy_call_interleaved.ts [rounds=200]`; prints medians.
 *
 * @module
 */
import { z } from "zod";
import { defineTool, ToolRouter, type ToolSet } from "../mod.ts";

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
  console.log(`${name}: ${(value * 1000).toFixed(2)} µs per call, ${(value / base).toFixed(2)}×`);
}

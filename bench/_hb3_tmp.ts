import { z } from "zod";
import { defineTool, ToolRouter } from "../mod.ts";
const forecast = defineTool({ name: "forecast", description: "F", input: z.object({ city: z.string() }), run: () => 1 });
const variants = [[], [{}], [{ before: () => undefined }], [{ after: () => undefined }]];
const sets = await Promise.all(variants.map((hooks) => new ToolRouter({ functions: [forecast], hooks: hooks as never }).expose({ functions: ["forecast"] })));
const times = variants.map(() => [] as number[]);
for (let r = 0; r < 40; r++) for (let k = 0; k < sets.length; k++) {
  const t = performance.now();
  for (let i = 0; i < 300; i++) await sets[k].invoke("forecast", '{"city":"x"}');
  times[k].push((performance.now() - t) / 300 * 1000);
}
for (const [k, v] of variants.entries()) console.log(JSON.stringify(v.map((h) => Object.keys(h))), times[k].sort((a, b) => a - b)[20].toFixed(2));

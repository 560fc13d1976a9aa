/**
 * Router overhead, measured as ratios within one run:
 * (a) the floor: zod parse + handler + JSON.stringify called directly;
 * (b) a function tool through `toolSet.invoke` with the model's JSON text;
 * (c) a local MCP service tool through `toolSet.invoke`;
 * (d) `router.expose()` selecting 20 tools from 10 000, and from 100.
 */
import { z } from "zod";
import { defineMcpService, defineTool, ToolRouter } from "../mod.ts";

const schema = z.object({ city: z.string(), days: z.number().int().min(1).max(14) }).strict();
// Tool handlers do I/O, so they are async; the floor awaits the same handler.
const handler = async ({ city, days }: { city: string; days: number }) => {
  await null;
  return { city, days, sky: "clear" };
};
const argsText = '{"city":"Oslo","days":3}';
const argsObject = { city: "Oslo", days: 3 };

const forecast = defineTool({
  name: "forecast",
  description: "Forecast",
  input: schema,
  run: handler,
});
const weather = defineMcpService({
  name: "weather",
  tools: { forecast: { description: "Forecast", input: schema, run: handler } },
});
const small = new ToolRouter({ functions: [forecast], mcpServices: [weather] });
const toolSet = await small.expose({ functions: ["forecast"], mcpServices: ["weather"] });

function registry(size: number): ToolRouter {
  const functions = Array.from(
    { length: size },
    (_, i) =>
      defineTool({
        name: `tool_${i}`,
        description: `Tool ${i}`,
        input: z.object({ n: z.number() }),
        run: () => i,
      }),
  );
  return new ToolRouter({ functions });
}
const names = Array.from({ length: 20 }, (_, i) => `tool_${i * 5}`);
const big = registry(10_000);
const hundred = registry(100);

Deno.bench("(a) floor: JSON.parse + zod parse + handler + JSON.stringify", {
  group: "call",
  baseline: true,
}, async () => {
  JSON.stringify(await handler(schema.parse(JSON.parse(argsText))));
});
Deno.bench(
  "(a') floor without JSON.parse (arguments already an object)",
  { group: "call" },
  async () => {
    JSON.stringify(await handler(schema.parse(argsObject)));
  },
);
Deno.bench("(b) function tool via toolSet.invoke", { group: "call" }, async () => {
  await toolSet.invoke("forecast", argsText);
});
Deno.bench("(c) local MCP service tool via toolSet.invoke", { group: "call" }, async () => {
  await toolSet.invoke("weather_forecast", argsText);
});
Deno.bench("(d) expose 20 of 100 tools", { group: "expose", baseline: true }, async () => {
  await hundred.expose({ functions: names });
});
Deno.bench("(d) expose 20 of 10 000 tools", { group: "expose" }, async () => {
  await big.expose({ functions: names });
});

// (e) A call through a 200-rule policy against the same call with no policy (target: ≤ 1.2×).
// 200 rules of every form, a few about the called tool; the rest name other tools.
const rules = Array.from({ length: 200 }, (_, i) => {
  const forms = [`tool_${i}`, `other_${i}_*`, `bash(cmd${i} *)`, `write_file(dir${i}/**)`];
  return forms[i % forms.length];
});
const policed = new ToolRouter({
  functions: [forecast],
  policy: {
    deny: rules.slice(0, 70),
    ask: rules.slice(70, 130),
    allow: [...rules.slice(130), "forecast"],
    default: "deny",
  },
});
const policedSet = await policed.expose({ functions: ["forecast"] });
const argPoliced = new ToolRouter({
  functions: [forecast],
  policy: { deny: [...rules.slice(0, 199), "forecast(city=Atlantis)"] },
});
const argPolicedSet = await argPoliced.expose({ functions: ["forecast"] });
Deno.bench("(e) function tool, no policy", {
  group: "policy",
  baseline: true,
  n: 200_000,
  warmup: 20_000,
}, async () => {
  await toolSet.invoke("forecast", argsText);
});
Deno.bench("(e) function tool through a 200-rule policy", {
  group: "policy",
  n: 200_000,
  warmup: 20_000,
}, async () => {
  await policedSet.invoke("forecast", argsText);
});
Deno.bench(
  "(e) function tool through a 200-rule policy with an argument rule about it",
  { group: "policy", n: 200_000, warmup: 20_000 },
  async () => {
    await argPolicedSet.invoke("forecast", argsText);
  },
);

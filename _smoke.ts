import { ToolRouter } from "@toolroute/toolroute";
import { builtinTools } from "@toolroute/toolroute/deno";
const ws = Deno.args[0];
const bash = Deno.args[1] === "bwrap" ? { sandbox: "bwrap" as const } : false;
await using router = new ToolRouter({ builtins: builtinTools({ workspace: ws, bash }) });
const tools = await router.expose({ builtins: ["glob", "grep", "edit"] });
for (const [name, args] of [
  ["glob", { pattern: "**/*.ts", maxResults: 100000, includeIgnored: true }],
  ["grep", { pattern: "needle42", maxResults: 100000, includeIgnored: true }],
  ["glob", { pattern: "d1/s10*/*.md" }],
  ["grep", { pattern: "needle4(2", }],
] as const) {
  const t = performance.now();
  const out = await tools.invoke(name, args);
  const p = JSON.parse(out);
  console.log(name, (performance.now() - t).toFixed(0), "ms", out.length, p.paths?.length ?? p.matches?.length, p.truncated, out.slice(0, 150));
}

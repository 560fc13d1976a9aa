/**
 * Helper of `host_search_fifo_swap_attack.ts`: greps WORKSPACE on the host (bash off) in a loop
 * for MS milliseconds, then prints the number of calls.
 *
 * @module
 */
import { ToolRouter } from "@toolroute/toolroute";
import { builtinTools } from "@toolroute/toolroute/deno";

const [workspace, ms] = Deno.args;
const router = new ToolRouter({ builtins: builtinTools({ workspace, bash: false }) });
const tools = await router.expose({ builtins: ["grep", "glob"] });
const until = performance.now() + Number(ms);
let calls = 0;
while (performance.now() < until) {
  await tools.call("grep", { pattern: "needle" });
  await tools.call("glob", { pattern: "**/*" });
  calls++;
}
await router.close();
console.log(`CALLS=${calls}`);

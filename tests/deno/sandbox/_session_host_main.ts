// A host process for sandbox_session_test.ts: opens a sandbox session (one exec through the
// router), prints "started", then waits to be killed.
import { ToolRouter } from "@toolroute/toolroute";
import { builtinTools } from "@toolroute/toolroute/deno";

const [workspace] = Deno.args;
const router = new ToolRouter({ builtins: builtinTools({ workspace, bash: true }) });
const tools = await router.expose({ builtins: ["bash"] });
await tools.call("bash", { command: "true" });
await Deno.stdout.write(new TextEncoder().encode("started\n"));
setInterval(() => {}, 1000);

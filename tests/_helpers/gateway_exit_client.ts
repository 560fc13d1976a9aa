/**
 * A client process for the clean-exit test: makes N calls through `McpGateway` + `ToolRouter` to
 * the server URL given as the first argument, runs a garbage collection when it can (that is what
 * used to detach the event stream from its abort signal), closes the router and returns. It must
 * then exit by itself; nothing here calls `Deno.exit`.
 *
 * Usage: `deno run --allow-net=127.0.0.1 --v8-flags=--expose-gc gateway_exit_client.ts <url> [N]`
 *
 * @module
 */

import { ToolRouter } from "../../mod.ts";
import { McpGateway } from "../../src/core/mcp/mod.ts";

const [url, count = "1000"] = Deno.args;
const router = new ToolRouter({ gateway: new McpGateway({ servers: { main: { url } } }) });
const toolSet = await router.expose({ mcpServers: ["main"] });
let ok = 0;
for (let i = 0; i < Number(count); i++) {
  const result = await toolSet.call("echo", { text: `call ${i}` });
  if (!result.isError && result.text === `call ${i}`) ok++;
}
(globalThis as { gc?: () => void }).gc?.();
await router.close();
console.log(JSON.stringify({ ok }));

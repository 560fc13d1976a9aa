/**
 * Test helper: runs `serveStdio` directly in this process (no CLI around it) so that its own
 * contract can be checked over the process's stdin and stdout.
 *
 * Arguments: WORKSPACE [USER] [STOP_AFTER_MS]. Calls carry the user id into stderr as
 * `event read_file user=ID`. After serveStdio returns it writes `serveStdio returned` to stderr.
 * With `NOTIFY_WHEN` set (a file name), once that file appears in the workspace it reports tool-list
 * changes for another user, for USER (if any) and for everyone.
 *
 * @module
 */
import { buildRouter } from "../../../src/deno/cli/build_router.ts";
import { serveStdio } from "../../../src/deno/cli/serve_stdio.ts";
import type { ToolrouteConfig } from "../../../src/deno/cli/toolroute_config.ts";

const [workspace, user = "", stopAfter = ""] = Deno.args;
const config: ToolrouteConfig = {
  context: { workspace },
  modules: [],
  expose: { builtins: ["read_file"] },
  mcpServers: {},
  users: user === "" ? [] : [{ tokenVariable: "T", id: user, mcpServers: {} }],
  http: {},
  variables: [],
};
const err = (line: string) => void Deno.stderr.writeSync(new TextEncoder().encode(line + "\n"));
await using served = await buildRouter(config, {
  onEvent: (event) => err(`event ${event.tool} user=${event.userId ?? "-"}`),
});
const controller = new AbortController();
if (stopAfter !== "") setTimeout(() => controller.abort(), Number(stopAfter));
const toolsChanged = new Set<(userId?: string) => void>();
const notifyWhen = Deno.env.get("NOTIFY_WHEN");
if (notifyWhen !== undefined) {
  const poll = setInterval(() => {
    try {
      Deno.statSync(`${workspace}/${notifyWhen}`);
    } catch {
      return;
    }
    clearInterval(poll);
    for (const listener of toolsChanged) listener("someone-else");
    if (user !== "") { for (const listener of toolsChanged) listener(user); }
    for (const listener of toolsChanged) listener(undefined);
  }, 20);
}
await serveStdio({
  served,
  config,
  io: { out: () => err("unexpected out"), err },
  stop: controller.signal,
  toolsChanged,
}, user === "" ? undefined : user);
err("serveStdio returned");

/**
 * A server's config (copied from the internet) sets its own `PATH`, which leaves out the folder
 * bubblewrap is installed in: the server must still run in its sandbox by default, not fall back
 * to running unconfined as if bubblewrap were missing. The hostile server reports its `HOME`:
 * the user's when unconfined, the sandbox's own when confined.
 *
 * @module
 */
import { assert, assertEquals } from "@std/assert";
import { ToolRouter } from "../../../mod.ts";
import type { McpStdioServerConfig } from "../../../src/core/mcp/mod.ts";
import { createDenoGateway } from "../../../src/deno/mcp/deno_gateway.ts";
import { SANDBOX_HOME } from "../../../src/deno/sandbox/spawn_sandboxed.ts";
import { skipWithoutBwrap } from "../../_helpers/bwrap.ts";
import { hostileServer } from "../sandbox/_hostile_world.ts";

async function homeOf(config: McpStdioServerConfig): Promise<{ home: string; events: string[] }> {
  const events: string[] = [];
  const gateway = createDenoGateway({
    servers: { s: config },
    requestTimeoutMs: 60_000,
    onEvent: (event) => void events.push(event.type),
  });
  try {
    const toolSet = await new ToolRouter({ gateway }).expose({ mcpServers: ["s"] });
    assertEquals(toolSet.missing, [], JSON.stringify(gateway.status()));
    const result = await toolSet.call("whoami", {});
    assert(!result.isError, result.text);
    return { home: JSON.parse(result.text).home, events };
  } finally {
    await gateway.close();
  }
}

Deno.test({
  name: "a stdio server whose config's PATH leaves out bubblewrap still runs in its sandbox",
  ignore: skipWithoutBwrap(),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const { sandbox: _, ...server } = hostileServer("bwrap");
    // Its program by its absolute path, so it starts with a PATH that holds no bwrap.
    const config: McpStdioServerConfig = {
      ...server,
      env: { ...server.env, PATH: "/opt/toolroute-no-such-folder" },
    };
    // The control: with "none", the server has the user's home (the attack's aim).
    const unconfined = await homeOf({ ...config, sandbox: "none" });
    assertEquals(unconfined.home, Deno.env.get("HOME"));
    // By default it is sandboxed, without an "unconfined" warning.
    const confined = await homeOf(config);
    assertEquals(confined.home, SANDBOX_HOME);
    assert(!confined.events.includes("unconfined"), JSON.stringify(confined.events));
  },
});

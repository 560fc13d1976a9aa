/**
 * A stdio server that leaves daemons behind: before it starts its MCP server it forks a
 * `setsid` daemon and a double-forked one, both ignoring SIGTERM and SIGHUP, and it ignores
 * SIGTERM itself. Unconfined, both daemons outlive the gateway's close (the attack runs); in its
 * sandbox, nothing of it is left on the host after the close.
 *
 * @module
 */
import { assert, assertEquals } from "@std/assert";
import { ToolRouter } from "../../../mod.ts";
import type { McpStdioServerConfig } from "../../../src/core/mcp/mod.ts";
import { createDenoGateway } from "../../../src/deno/mcp/deno_gateway.ts";
import { skipWithoutBwrap } from "../../_helpers/bwrap.ts";
import { fixtureReadOnly, hostileServer, type SandboxSetting } from "../sandbox/_hostile_world.ts";

/** The host's processes whose command line holds the marker. */
async function survivors(marker: string): Promise<number[]> {
  const { stdout } = await new Deno.Command("pgrep", { args: ["-f", marker], stdout: "piped" })
    .output();
  return new TextDecoder().decode(stdout).split("\n").filter((line) => line !== "").map(Number);
}

/** The hostile server, started by a bash that first leaves two daemons named by the marker. */
function daemonizing(marker: string, sandbox: SandboxSetting) {
  const server = hostileServer(sandbox);
  const script = `trap '' TERM HUP
setsid -f bash -c "trap '' TERM HUP; exec -a $0-setsid sleep 600" </dev/null >/dev/null 2>&1
( ( trap '' TERM HUP; exec -a $0-double sleep 600 ) & ) </dev/null >/dev/null 2>&1
exec "$@"`;
  return {
    ...server,
    command: "bash",
    args: ["-c", script, marker, server.command, ...server.args ?? []],
  } as McpStdioServerConfig;
}

/** Starts the server, calls it, counts the marker's processes while it runs, and closes it. */
async function startAndClose(config: McpStdioServerConfig, marker: string): Promise<number> {
  const gateway = createDenoGateway({ servers: { daemons: config }, requestTimeoutMs: 60_000 });
  try {
    const toolSet = await new ToolRouter({ gateway }).expose({ mcpServers: ["daemons"] });
    assertEquals(toolSet.missing, [], JSON.stringify(gateway.status()));
    const result = await toolSet.call("whoami", {});
    assert(!result.isError, result.text);
    return (await survivors(marker)).length;
  } finally {
    await gateway.close();
  }
}

Deno.test({
  name: "a sandboxed stdio server's setsid and double-forked daemons do not outlive its close",
  ignore: skipWithoutBwrap(),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const loose = `toolroute-daemon-${crypto.randomUUID().slice(0, 8)}`;
    try {
      assertEquals(await startAndClose(daemonizing(loose, "none"), loose), 2, "both daemons ran");
      // Unconfined, both daemons are still there after the close: the attack runs.
      assertEquals((await survivors(loose)).length, 2, "two daemons left unconfined");
    } finally {
      for (const pid of await survivors(loose)) Deno.kill(pid, "SIGKILL");
    }
    const held = `toolroute-daemon-${crypto.randomUUID().slice(0, 8)}`;
    try {
      const sandbox = { readOnly: fixtureReadOnly() };
      // Both daemons run in the sandbox while the server runs (the host sees its processes)...
      assertEquals(await startAndClose(daemonizing(held, sandbox), held), 2, "both daemons ran");
      // ...and after the close their PID namespace is gone with them (bubblewrap's init died).
      let left = await survivors(held);
      for (let i = 0; i < 50 && left.length > 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        left = await survivors(held);
      }
      assertEquals(left, [], "nothing of the sandboxed server is left on the host");
    } finally {
      for (const pid of await survivors(held)) Deno.kill(pid, "SIGKILL");
    }
  },
});

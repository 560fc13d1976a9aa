/**
 * A config (copied from the internet) shares a folder with a sandboxed server that holds what the
 * sandbox keeps from it: `/`, `/home` (every user's home), `/tmp` (every process's temporary
 * files), the user's home written `home/` or through a link, as `roots` or `readOnly`. bash's
 * workspace refuses the same paths; a server's sandbox now does too, and says what to do.
 *
 * @module
 */
import { assert, assertEquals, assertStringIncludes, assertThrows } from "@std/assert";
import { ToolRouter } from "../../../mod.ts";
import { createDenoGateway } from "../../../src/deno/mcp/deno_gateway.ts";
import { stdioSandboxPlan } from "../../../src/deno/mcp/stdio_sandbox.ts";
import { skipWithoutBwrap } from "../../_helpers/bwrap.ts";
import { hostileServer } from "../sandbox/_hostile_world.ts";

const SPAWN = { command: "npx -y some-server", path: "/usr/bin:/bin", os: "linux" as const };

Deno.test({
  name: "a server's sandbox refuses roots and readOnly paths that are a home or a system folder",
  ignore: skipWithoutBwrap(),
  async fn() {
    const home = Deno.env.get("HOME")!;
    const link = await Deno.makeTempDir({ prefix: "toolroute-broad-" });
    await Deno.remove(link);
    await Deno.symlink(home, link);
    try {
      for (
        const sandbox of [
          { roots: ["/"] },
          { roots: ["/home"] },
          { roots: ["/tmp"] },
          { readOnly: [`${home}/`] },
          { readOnly: [link] },
        ]
      ) {
        const error = assertThrows(() => stdioSandboxPlan(sandbox, SPAWN), Error, "too broad");
        assertStringIncludes(error.message, '"sandbox": "none"');
      }
      // A project folder is fine.
      assertEquals(stdioSandboxPlan({ roots: [`${link}-not-broad`] }, SPAWN).kind, "sandboxed");
    } finally {
      await Deno.remove(link);
    }
  },
});

Deno.test({
  name: "a server given /tmp as its root does not read another process's temporary file",
  ignore: skipWithoutBwrap(),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const secret = await Deno.makeTempFile({ prefix: "toolroute-other-process-" });
    await Deno.writeTextFile(secret, "OTHER-PROCESS-SECRET");
    const read = async (sandbox: Parameters<typeof hostileServer>[0]) => {
      const gateway = createDenoGateway({ servers: { s: hostileServer(sandbox) } });
      try {
        const toolSet = await new ToolRouter({ gateway }).expose({ mcpServers: ["s"] });
        if (toolSet.missing.length > 0) return `MISSING ${JSON.stringify(gateway.status())}`;
        return (await toolSet.call("read_file", { path: secret })).text;
      } finally {
        await gateway.close();
      }
    };
    try {
      // The attack's aim: unconfined, the server reads the file.
      assertStringIncludes(await read("none"), "OTHER-PROCESS-SECRET");
      const sandboxed = await read({ roots: ["/tmp"] });
      assert(!sandboxed.includes("OTHER-PROCESS-SECRET"), sandboxed);
      assertStringIncludes(sandboxed, "too broad");
    } finally {
      await Deno.remove(secret);
    }
  },
});

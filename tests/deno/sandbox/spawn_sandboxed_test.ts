import { assertEquals } from "@std/assert";
import { spawnSandboxed } from "../../../src/deno/sandbox/spawn_sandboxed.ts";
import { STDIO_SANDBOX_LIMITS } from "../../../src/deno/mcp/stdio_sandbox.ts";
import { skipWithoutBwrap } from "../../_helpers/bwrap.ts";

async function workingFolder(root: string, cwd: string): Promise<string> {
  const { child } = await spawnSandboxed(
    { command: "bash", args: ["-c", "pwd"], env: { PATH: "/usr/bin:/bin", HOME: cwd }, cwd },
    { roots: [root], readOnly: [], limits: STDIO_SANDBOX_LIMITS },
  );
  await child.stdin.close();
  const [stdout] = await Promise.all([new Response(child.stdout).text(), child.stderr.cancel()]);
  await child.status;
  return stdout.trim();
}

Deno.test({
  name: "a server starts in its cwd when that is a root written with a trailing slash",
  ignore: skipWithoutBwrap(),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute-cwd-" }));
    try {
      const root = `${base}/data`;
      await Deno.mkdir(root);
      // The command's HOME is the folder, so the probe of what it needs does not show it
      // read-only too: only the root does.
      assertEquals(await workingFolder(`${root}/`, root), root);
    } finally {
      await Deno.remove(base, { recursive: true });
    }
  },
});

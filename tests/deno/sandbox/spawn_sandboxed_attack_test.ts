/**
 * A sandboxed server with a read-write root plants a symlink there, at a path its config names as
 * an argument (or `cwd`, or a `readOnly` path not yet created): on its next start, the read-only
 * mount derived from that path would follow the link on the host and show what it points at, the
 * user's `~/.ssh`. Held: bubblewrap resolves the mount's destination inside the new root, where
 * the link's target does not exist, so the sandbox refuses to start (and never shows the key).
 *
 * @module
 */
import { assert, assertStringIncludes } from "@std/assert";
import { spawnSandboxed } from "../../../src/deno/sandbox/spawn_sandboxed.ts";
import { STDIO_SANDBOX_LIMITS } from "../../../src/deno/mcp/stdio_sandbox.ts";
import { skipWithoutBwrap } from "../../_helpers/bwrap.ts";

async function runSandboxed(
  script: string,
  args: string[],
  sandbox: { roots: string[]; readOnly?: string[] },
  env: Record<string, string>,
  cwd?: string,
): Promise<string> {
  const { child } = await spawnSandboxed(
    { command: "bash", args: ["-c", script, "x", ...args], env, ...(cwd ? { cwd } : {}) },
    { roots: sandbox.roots, readOnly: sandbox.readOnly ?? [], limits: STDIO_SANDBOX_LIMITS },
  );
  await child.stdin.close();
  const [stdout] = await Promise.all([new Response(child.stdout).text(), child.stderr.cancel()]);
  await child.status;
  return stdout;
}

for (const via of ["argument", "cwd", "readOnly"] as const) {
  Deno.test({
    name: `a symlink a server planted in its root, named by its ${via}, shows nothing outside it`,
    ignore: skipWithoutBwrap(),
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      const base = await Deno.makeTempDir({ prefix: "toolroute-planted-" });
      try {
        const home = `${base}/home`;
        await Deno.mkdir(`${home}/.ssh`, { recursive: true });
        await Deno.writeTextFile(`${home}/.ssh/id_ed25519`, "SECRET-KEY");
        const root = `${base}/notes`;
        await Deno.mkdir(root);
        const env = { PATH: "/usr/bin:/bin", HOME: home };
        const sub = `${root}/archive`;
        // First start: the server plants the link in its root.
        await runSandboxed(`ln -s "${home}/.ssh" "${sub}"`, [], { roots: [root] }, env);
        assert((await Deno.lstat(sub)).isSymlink, "the server planted the link");
        // Next start: the config names the path; the server reads through it.
        const read = `cat "${sub}/id_ed25519" 2>/dev/null || echo NOT-READ`;
        const start = via === "argument"
          ? runSandboxed(read, [root, sub], { roots: [root] }, env)
          : via === "cwd"
          ? runSandboxed(read, [], { roots: [root] }, env, sub)
          : runSandboxed(read, [], { roots: [root], readOnly: [sub] }, env);
        const out = await start.catch((error: Error) => `REFUSED ${error.message}`);
        // Either the sandbox refused to start, or it started without the key.
        if (out.startsWith("REFUSED")) assertStringIncludes(out, "could not start");
        else assertStringIncludes(out, "NOT-READ");
        assert(!out.includes("SECRET-KEY"), out);
      } finally {
        await Deno.remove(base, { recursive: true });
      }
    },
  });
}

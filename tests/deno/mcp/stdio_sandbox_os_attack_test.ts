/**
 * A config that asks for the sandbox (`"bwrap"`, or an object with roots and a network
 * allowlist) used on a system where bubblewrap cannot run (macOS, Windows): the transport used to
 * skip the plan there and start the server unconfined, silently. The plan is now made on every
 * system, and refuses it.
 *
 * @module
 */
import { assertEquals, assertStringIncludes, assertThrows } from "@std/assert";
import { stdioSandboxPlan } from "../../../src/deno/mcp/stdio_sandbox.ts";

const SPAWN = { command: "npx -y some-server", path: "/usr/bin:/bin" };

for (const os of ["darwin", "windows"] as const) {
  Deno.test(`on ${os}, a config that asks for the sandbox never runs unconfined`, () => {
    for (const setting of ["bwrap", { roots: ["/tmp"], network: { allow: ["api.example.com"] } }]) {
      const error = assertThrows(
        () => stdioSandboxPlan(setting as "bwrap", { ...SPAWN, os }),
        Error,
        "runs on Linux only",
      );
      assertStringIncludes(error.message, '"sandbox": "none"');
    }
    // Said nothing, or "none": unconfined as before (no sandbox can be installed there).
    assertEquals(stdioSandboxPlan(undefined, { ...SPAWN, os }), { kind: "unconfined" });
    assertEquals(stdioSandboxPlan("none", { ...SPAWN, os }), { kind: "unconfined" });
  });
}

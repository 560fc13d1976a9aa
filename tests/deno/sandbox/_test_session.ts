import { SandboxSession } from "../../../src/deno/sandbox/sandbox_session.ts";
import type { SessionSetup } from "../../../src/deno/sandbox/session_launch.ts";

/**
 * Starts a session for tests: the workspace as its only mount, the host's PATH, a 10 s start
 * deadline, and `wrap` (the resource limits) when given.
 *
 * @param workspace The workspace, mounted at the same path inside.
 * @param options The limits wrapper.
 * @returns The ready session.
 */
export function testSession(
  workspace: string,
  options: Pick<SessionSetup, "wrap"> = {},
): Promise<SandboxSession> {
  return SandboxSession.start({
    mounts: { workspace: { source: workspace, dest: workspace }, readOnlyRoots: [] },
    path: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    startTimeoutMs: 10_000,
    wrap: options.wrap,
  });
}

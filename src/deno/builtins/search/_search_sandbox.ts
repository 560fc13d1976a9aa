import { ToolError } from "../../../core/tool_error.ts";
import { bashEnvironment } from "../bash/bash_permissions.ts";
import type { ResolvedContext } from "../builtin_context.ts";
import { bwrapCommand } from "../sandbox/bwrap_command.ts";
import { bwrapSearchPath } from "../sandbox/bwrap_search_path.ts";
import { bwrapMissing, sandboxFailure } from "../sandbox/sandbox_failure.ts";
import { sandboxMounts } from "../sandbox/sandbox_mounts.ts";

/**
 * The searches' own bubblewrap: while bash is sandboxed, `glob` and `grep` list and read inside a
 * bubblewrap with bash's mounts (the same `sandboxMounts`, protected paths included), one short
 * sandbox per search step. The file tools run in the context's long-lived sandbox session instead;
 * moving the searches onto it is left to do (see docs/builtins.md).
 */

/**
 * Whether the searches run inside bubblewrap for this context: exactly when bash is `bwrap`.
 *
 * @param ctx The resolved context.
 * @returns Whether to use the sandbox.
 */
export function usesFileSandbox(ctx: ResolvedContext): boolean {
  return ctx.bash !== false && ctx.bash.sandbox === "bwrap";
}

/**
 * Starts `bash -c script` inside bubblewrap with the context's mounts, in the workspace, with
 * nothing of the host's environment but `PATH`.
 *
 * @param ctx The resolved context (bash on).
 * @param script The bash script.
 * @param args Its arguments (`$1`…).
 * @param stdin Whether the script reads standard input.
 * @returns The running process; stdout and stderr are piped.
 */
export async function spawnInFileSandbox(
  ctx: ResolvedContext,
  script: string,
  args: readonly string[],
  stdin: "piped" | "null",
): Promise<Deno.ChildProcess> {
  if (ctx.bash === false) throw new TypeError("Cannot use the file sandbox: bash is off");
  // Only PATH is needed (to find bubblewrap); nothing of the host's environment goes inside.
  const env = bashEnvironment(["bwrap"], ctx.bash.env.filter((name) => name === "PATH"));
  const mounts = await sandboxMounts(ctx);
  const path = bwrapSearchPath(env.PATH, [mounts.workspace, ...mounts.readOnlyRoots]);
  try {
    return new Deno.Command("bwrap", {
      args: bwrapCommand({
        ...mounts,
        cwd: mounts.workspace.dest,
        command: ["bash", "-c", script, "toolroute-files", ...args],
      }),
      env: { PATH: path },
      clearEnv: true,
      stdin,
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    throw new ToolError("tool_error", bwrapMissing("session"), { cause: error });
  }
}

/**
 * Throws when bubblewrap itself failed (the one check of `sandboxFailure`), so its error is never
 * taken for the search's output.
 *
 * @param code The exit code.
 * @param stdout What the script printed.
 * @param stderr What went to stderr.
 */
export function assertFileSandboxRan(code: number, stdout: string, stderr: string): void {
  const failure = sandboxFailure(code, stdout, stderr, "session");
  if (failure !== undefined) throw new ToolError("tool_error", failure);
}

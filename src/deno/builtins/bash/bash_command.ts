import { ToolError } from "../../../core/tool_error.ts";
import { type BashInvocation, bashInvocation } from "./bash_invocation.ts";
import type { ReapTarget } from "./process_reaper.ts";
import { bashEnvironment } from "../command/bash_environment.ts";
import type { ResolvedContext } from "../builtin_context.ts";
import { sandboxMounts } from "../sandbox/sandbox_mounts.ts";
import { resolveDirectory } from "../paths/workspace_paths.ts";

/** What a model asked to run. */
export interface BashRequest {
  /** The command text. */
  readonly command: string;
  /** The working directory as the model gave it; default: the workspace. */
  readonly cwd?: string;
  /** Whether it runs in the background (`start`). */
  readonly background: boolean;
  /** The bubblewrap program; default `"bwrap"`. */
  readonly bwrapProgram?: string;
  /** Sandboxed, it runs in the context's session: no bubblewrap arguments are built. */
  readonly session?: boolean;
}

/**
 * Checks a command request against the context and builds how to spawn it: the programs and
 * variables Deno must allow (`permission_denied` otherwise, never a prompt), the working directory
 * (inside the workspace, also after following symlinks), the scrubbed environment, and for the
 * sandbox its mounts.
 *
 * @param ctx The resolved context; bash must be on.
 * @param request The command, directory and mode.
 * @returns How to spawn it.
 */
export async function prepareBashCommand(
  ctx: ResolvedContext,
  request: BashRequest,
): Promise<BashInvocation> {
  if (ctx.bash === false) throw new TypeError("Cannot run a command: bash is off in this context");
  const sandboxed = ctx.bash.sandbox === "bwrap";
  const env = bashEnvironment(sandboxed ? ["bash", "bwrap"] : ["bash"], ctx.bash.env);
  const directory = await resolveDirectory(ctx, request.cwd);
  if (directory.root !== ctx.workspace) {
    throw new ToolError(
      "permission_denied",
      `The working directory "${request.cwd}" is outside the workspace: commands run in the workspace`,
    );
  }
  if (sandboxed && request.session === true) {
    // The session has its mounts; the command only needs its text, directory and environment.
    const inside = { command: request.command, cwd: directory.real, env };
    return {
      command: inside.command,
      cwd: inside.cwd,
      env,
      program: "bwrap",
      args: [],
      sandboxed: true,
      detached: false,
      target: sandboxTarget,
      inside,
    };
  }
  return bashInvocation({
    sandbox: ctx.bash.sandbox,
    command: request.command,
    cwd: directory.real,
    // Only the sandbox needs the roots (for its bind mounts: real path onto declared path).
    roots: sandboxed ? await sandboxMounts(ctx) : undefined,
    env,
    background: request.background,
    bwrapProgram: request.bwrapProgram,
  });
}

function sandboxTarget(child: Deno.ChildProcess): ReapTarget {
  return { kind: "sandbox", child };
}

// Kept here too: the mounts moved to the sandbox's room.
export { sandboxMounts } from "../sandbox/sandbox_mounts.ts";

import { ToolError } from "../../../core/tool_error.ts";
import { type BashInvocation, bashInvocation } from "./bash_invocation.ts";
import type { ReapTarget } from "./process_reaper.ts";
import { bashEnvironment } from "../command/bash_environment.ts";
import type { ResolvedContext } from "../builtin_context.ts";
import { resolveDirectory } from "../paths/workspace_paths.ts";

/** What a model asked to run. */
export interface BashRequest {
  readonly command: string;
  /** The working directory as the model gave it; default: the workspace. */
  readonly cwd?: string;
  /** Whether it runs in the background (`start`). */
  readonly background: boolean;
}

/**
 * Checks a command request against the context and builds how to spawn it: the programs and
 * variables Deno must allow (`permission_denied` otherwise, never a prompt), the working directory
 * (inside the workspace, also after following symlinks) and the scrubbed environment. A sandboxed
 * command runs in the context's sandbox session, which has its mounts: it needs only its text,
 * directory and environment.
 *
 * @param request The command, directory and mode.
 * @returns How to spawn it.
 */
export function prepareBashCommand(ctx: ResolvedContext, request: BashRequest): BashInvocation {
  if (ctx.bash === false) throw new TypeError("Cannot run a command: bash is off in this context");
  const sandboxed = ctx.bash.sandbox === "bwrap";
  const env = bashEnvironment(sandboxed ? ["bash", "bwrap"] : ["bash"], ctx.bash.env);
  const directory = resolveDirectory(ctx, request.cwd);
  if (directory.root !== ctx.workspace) {
    throw new ToolError(
      "permission_denied",
      `The working directory "${request.cwd}" is outside the workspace: commands run in the workspace`,
    );
  }
  if (sandboxed) {
    return {
      command: request.command,
      cwd: directory.real,
      env,
      program: "bwrap",
      args: [],
      sandboxed: true,
      detached: false,
      target: sandboxTarget,
    };
  }
  return bashInvocation({
    command: request.command,
    cwd: directory.real,
    env,
    background: request.background,
  });
}

function sandboxTarget(child: Deno.ChildProcess): ReapTarget {
  return { kind: "sandbox", child };
}

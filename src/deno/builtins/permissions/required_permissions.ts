import type { BuiltinContext } from "../../../core/tool_source.ts";
import { resolveBuiltinContext, type ResolvedContext } from "../builtin_context.ts";

/** The Deno permissions a built-in context needs, as plain data. */
export interface RequiredPermissions {
  /** Paths read (read_file, glob, grep, and every write tool): the workspace and the read-only roots. */
  read: string[];
  /** Paths written (write_file, apply_patch, edit): the workspace. */
  write: string[];
  /**
   * Programs run: `bash`, and `bwrap` when sandboxed (the file and search tools then also run in
   * bwrap); empty when bash is off.
   */
  run: string[];
  /** Environment variables read for commands; empty when bash is off. */
  env: string[];
}

/**
 * Lists what a context needs from Deno's permission system, and nothing more.
 *
 * @param context A context, as given or resolved.
 * @returns The paths, programs and variable names.
 */
export function requiredPermissions(
  context: BuiltinContext | ResolvedContext,
): RequiredPermissions {
  // Resolving is idempotent: a resolved context is a valid context with every field set.
  const ctx = resolveBuiltinContext(context as BuiltinContext);
  const bash = ctx.bash;
  return {
    read: [ctx.workspace, ...ctx.readOnlyRoots.filter((root) => root !== ctx.workspace)],
    write: [ctx.workspace],
    run: bash === false ? [] : bash.sandbox === "bwrap" ? ["bash", "bwrap"] : ["bash"],
    env: bash === false ? [] : [...bash.env],
  };
}

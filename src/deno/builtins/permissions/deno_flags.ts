import type { BuiltinContext } from "../../../core/tool_source.ts";
import type { ResolvedContext } from "../builtin_context.ts";
import { requiredPermissions } from "./required_permissions.ts";

/**
 * Returns the exact Deno permission flags a process needs to serve a built-in context, and no
 * more: `--allow-read=<workspace>,<readOnlyRoots…>`, `--allow-write=<workspace>`, and when bash
 * is on `--allow-run=bash` (`bash,bwrap` when sandboxed) and `--allow-env=<variable names>`;
 * always `--no-prompt`, so that a missing permission is an error, never a prompt.
 *
 * A flag whose list would be empty is left out (bash off: no `--allow-run`, no `--allow-env`).
 * Paths are the context's declared paths; Deno checks paths without following symlinks, so
 * toolroute additionally checks every real path itself.
 *
 * @example Flags for a sandboxed workspace
 * ```ts
 * import { denoFlags } from "@toolroute/toolroute/deno";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(denoFlags({ workspace: "/srv/ws", bash: { sandbox: "bwrap", env: ["PATH"] } }), [
 *   "--allow-read=/srv/ws",
 *   "--allow-write=/srv/ws",
 *   "--allow-run=bash,bwrap",
 *   "--allow-env=PATH",
 *   "--no-prompt",
 * ]);
 * ```
 *
 * Throws a `TypeError` for a malformed context, and for a path with a comma (Deno's flag lists
 * are comma-separated, with no escape).
 *
 * @param context The context, as given to `builtinTools` or already resolved.
 * @returns The flags, in a stable order.
 */
export function denoFlags(context: BuiltinContext | ResolvedContext): string[] {
  const needed = requiredPermissions(context);
  const withComma = needed.read.find((path) => path.includes(","));
  if (withComma !== undefined) {
    throw new TypeError(
      `Cannot build Deno flags: the path "${withComma}" contains a comma, which Deno's comma-separated --allow-read list cannot express; use a path without commas`,
    );
  }
  const flags = [
    `--allow-read=${needed.read.join(",")}`,
    `--allow-write=${needed.write.join(",")}`,
  ];
  if (needed.run.length > 0) flags.push(`--allow-run=${needed.run.join(",")}`);
  if (needed.env.length > 0) flags.push(`--allow-env=${needed.env.join(",")}`);
  flags.push("--no-prompt");
  return flags;
}

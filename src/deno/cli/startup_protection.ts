import { relative } from "@std/path";
import type { BuiltinContext } from "../../core/tool_source.ts";
import { CONTEXT_DEFAULTS } from "../builtins/builtin_context.ts";
import type { StartupFiles } from "./startup_files.ts";

/**
 * The built-in context with every start-up file inside the workspace added to `protectedPaths`
 * (each anchored: `./deno.json` is that file, not every `deno.json`): the file tools refuse to
 * write them and the sandbox binds the existing ones read-only. Absent Deno config candidates are
 * protected too, so no file tool creates a `deno.json` that the next start would discover.
 *
 * Requires `allow-read` permission for the workspace (to compare real paths).
 *
 * @tags allow-read
 * @param context The config's built-in context.
 * @param startup What the next start runs or reads.
 * @returns A new context.
 */
export function withStartupProtection(
  context: BuiltinContext,
  startup: StartupFiles,
): BuiltinContext {
  const workspace = context.workspace;
  const realWorkspace = realOrSelf(workspace);
  const inside: string[] = [];
  for (const path of [...startup.files, ...startup.candidates]) {
    // Both where the config names it and where it really is (a symlinked folder on the way).
    for (const rel of [insideOf(workspace, path), insideOf(realWorkspace, realOrSelf(path))]) {
      if (rel !== undefined) inside.push(rel.includes("/") ? rel : `./${rel}`);
    }
  }
  if (inside.length === 0) return context;
  const current = context.protectedPaths ?? [...CONTEXT_DEFAULTS.protectedPaths];
  return { ...context, protectedPaths: [...new Set([...current, ...inside])] };
}

/**
 * The start-up files inside the workspace, for `toolroute flags --explain` and the warning.
 *
 * @param context The config's built-in context.
 * @param startup What the next start runs or reads.
 * @returns The absolute paths inside the workspace.
 */
export function startupFilesInside(context: BuiltinContext, startup: StartupFiles): string[] {
  const workspace = context.workspace;
  const realWorkspace = realOrSelf(workspace);
  return startup.files.filter((path) =>
    insideOf(workspace, path) !== undefined ||
    insideOf(realWorkspace, realOrSelf(path)) !== undefined
  );
}

function insideOf(root: string, path: string): string | undefined {
  const rel = relative(root, path);
  return rel === "" || rel === ".." || rel.startsWith("../") || rel.startsWith("/")
    ? undefined
    : rel;
}

function realOrSelf(path: string): string {
  try {
    return Deno.realPathSync(path);
  } catch {
    return path;
  }
}

import { basename, dirname, join, relative } from "@std/path";
import type { BuiltinContext } from "../../core/tool_source.ts";
import { CONTEXT_DEFAULTS } from "../builtins/builtin_context.ts";
import type { StartupFiles } from "./startup_files.ts";

/**
 * The built-in context with every start-up file inside the workspace added to `protectedPaths`
 * (each anchored: `./deno.json` is that file, not every `deno.json`): the file tools refuse to
 * write them and the sandbox binds the existing ones read-only. Absent Deno config candidates and
 * an absent lock are protected too, so no file tool creates a `deno.json` or `toolroute.lock`
 * that the next start would read. `trusted` adds the files serve writes and trusts (`--store`
 * and its SQLite journal files, `--audit`), protected the same way.
 *
 * Requires `allow-read` permission for the workspace (to compare real paths).
 *
 * @tags allow-read
 * @param startup What the next start runs or reads.
 * @param options Absolute paths of the trust files (`trusted`, from `trustFiles`).
 */
export function withStartupProtection(
  context: BuiltinContext,
  startup: StartupFiles,
  options: { trusted?: readonly string[] } = {},
): BuiltinContext {
  const { trusted = [] } = options;
  const workspace = context.workspace;
  const realWorkspace = realOrSelf(workspace);
  const inside: string[] = [];
  for (const path of [...startup.files, ...startup.candidates, ...trusted]) {
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
 * The files (start-up files, trust files) inside the workspace, as given or after following
 * symlinks: for `toolroute flags --explain` and serve's warning.
 *
 * @param paths Absolute paths.
 * @returns Those inside the workspace.
 */
export function filesInside(context: BuiltinContext, paths: readonly string[]): string[] {
  const workspace = context.workspace;
  const realWorkspace = realOrSelf(workspace);
  return paths.filter((path) =>
    insideOf(workspace, path) !== undefined ||
    insideOf(realWorkspace, realOrSelf(path)) !== undefined
  );
}

/**
 * The files serve writes and trusts besides its start-up files, for `withStartupProtection`:
 * the `--store` database with the journal files SQLite replays from beside it (`-wal`, `-shm`,
 * `-journal`), and the `--audit` file.
 *
 * @param files The absolute paths given to `--store` and `--audit`, when given.
 */
export function trustFiles(files: { store?: string; audit?: string }): string[] {
  const store = files.store === undefined
    ? []
    : ["", "-wal", "-shm", "-journal"].map((suffix) => files.store + suffix);
  return [...store, ...(files.audit === undefined ? [] : [files.audit])];
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
    // Absent (a journal file, a lock not written yet): where creating it would put it.
    try {
      return join(Deno.realPathSync(dirname(path)), basename(path));
    } catch {
      return path;
    }
  }
}

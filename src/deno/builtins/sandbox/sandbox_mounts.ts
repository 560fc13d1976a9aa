import { readOnlyRoots, type Root, workspaceRoot } from "../paths/allowed_roots.ts";
import type { ResolvedContext } from "../builtin_context.ts";
import type { BwrapOptions } from "./bwrap_command.ts";
import { protectedMounts } from "./protected_mounts.ts";

/** The mounts of a context's sandbox. */
export type SandboxMounts = Pick<
  BwrapOptions,
  "workspace" | "readOnlyRoots" | "protectedPaths" | "pinnedDirs"
>;

/**
 * The sandbox's mounts for a context: the workspace (read-write) and the read-only roots, each
 * from its real path onto its declared path, and the existing protected entries at any depth
 * (read-only, with the directories leading to them pinned; see `protectedMounts`).
 *
 * This is the one place that decides what is protected inside bubblewrap. It runs before every
 * sandboxed command and file operation: a session whose mounts differ from the current ones (a
 * `.git` created since it started) is replaced by a fresh one, so protections are re-established
 * at each command's start (see `sandbox_sessions.ts`). The walk is cached per directory.
 *
 * @param ctx The resolved context.
 * @returns The mounts for `bwrapCommand`.
 */
export async function sandboxMounts(ctx: ResolvedContext): Promise<SandboxMounts> {
  const mount = (root: Root) => ({ source: root.real, dest: root.declared });
  // Synchronous first (this runs before every sandboxed operation, and an asynchronous real
  // path costs several times its work in scheduling); any failure takes the checked way, which
  // says what is wrong.
  const workspace = realRootSync(ctx.workspace) ?? await workspaceRoot(ctx);
  const scan = await protectedMounts(workspace, ctx.protectedPaths);
  const roots = ctx.readOnlyRoots.map(realRootSync);
  return {
    workspace: mount(workspace),
    readOnlyRoots:
      (roots.every((root) => root !== undefined) ? roots as Root[] : await readOnlyRoots(ctx)).map(
        mount,
      ),
    protectedPaths: scan.mounts,
    pinnedDirs: scan.pinned,
  };
}

function realRootSync(declared: string): Root | undefined {
  try {
    return { declared, real: Deno.realPathSync(declared) };
  } catch {
    return undefined;
  }
}

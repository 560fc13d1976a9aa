import { join } from "@std/path";
import { readOnlyRoots, type Root, workspaceRoot } from "../paths/allowed_roots.ts";
import type { ResolvedContext } from "../builtin_context.ts";
import type { BwrapMount, BwrapOptions } from "./bwrap_command.ts";

/** The mounts of a context's sandbox. */
export type SandboxMounts = Pick<BwrapOptions, "workspace" | "readOnlyRoots" | "protectedPaths">;

/**
 * The sandbox's mounts for a context: the workspace (read-write) and the read-only roots, each
 * from its real path onto its declared path, and the existing protected paths (read-only).
 *
 * This is the one place that decides what is protected inside bubblewrap. It runs before every
 * sandboxed command and file operation: a session whose mounts differ from the current ones (a
 * `.git` created since it started) is replaced by a fresh one, so protections are re-established
 * at each command's start (see `sandbox_sessions.ts`).
 *
 * @param ctx The resolved context.
 * @returns The mounts for `bwrapCommand`.
 */
export async function sandboxMounts(ctx: ResolvedContext): Promise<SandboxMounts> {
  const mount = (root: Root) => ({ source: root.real, dest: root.declared });
  const workspace = await workspaceRoot(ctx);
  const protectedPaths: BwrapMount[] = [];
  for (const path of ctx.protectedPaths) {
    // Only a real directory or file inside the workspace: a symlink could point anywhere.
    const info = await Deno.lstat(join(workspace.real, path)).catch(() => undefined);
    if (info !== undefined && !info.isSymlink) {
      protectedPaths.push({ source: join(workspace.real, path), dest: join(ctx.workspace, path) });
    }
  }
  return {
    workspace: mount(workspace),
    readOnlyRoots: (await readOnlyRoots(ctx)).map(mount),
    protectedPaths,
  };
}

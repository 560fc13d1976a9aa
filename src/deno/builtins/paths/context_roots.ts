import type { ResolvedContext } from "../builtin_context.ts";
import { readOnlyRootsSync, type Root, workspaceRootSync } from "./allowed_roots.ts";

/** The roots a path check compares with: the workspace first, then the read-only roots. */
export interface ContextRoots {
  readonly workspace: Root;
  /** The read-only roots that exist. */
  readonly readOnly: readonly Root[];
}

const canonicalRoots = new WeakMap<ResolvedContext, ContextRoots>();

/**
 * The roots of a context for the path checks of one call, resolved synchronously and kept per
 * context object when every root is canonical: declared without a symlink, existing, resolvable.
 *
 * Keeping them is as strict as resolving them again: a check compares a fresh real path with
 * the root, and a real path can start with a kept canonical root only while that root still is
 * canonical, when resolving it again would give the same path. Should a component of the root
 * become a symlink later, every real path fails the comparison (fail closed) where a fresh
 * resolution would follow the root to its new target. A root reached through a symlink (such as
 * `/tmp` on macOS), a missing read-only root or one Deno may not resolve is resolved on each
 * call, as before.
 *
 * @returns The workspace and the read-only roots.
 */
export function contextRoots(ctx: ResolvedContext): ContextRoots {
  const kept = canonicalRoots.get(ctx);
  if (kept !== undefined) return kept;
  const workspace = workspaceRootSync(ctx);
  const { roots, complete } = readOnlyRootsSync(ctx);
  const resolved = Object.freeze({ workspace, readOnly: Object.freeze(roots) });
  if (complete && [workspace, ...roots].every((root) => root.real === root.declared)) {
    canonicalRoots.set(ctx, resolved);
  }
  return resolved;
}

import { join, relative } from "@std/path";
import { ToolError } from "../../../core/tool_error.ts";
import { within } from "../../sandbox/within.ts";
import type { ResolvedContext } from "../builtin_context.ts";
import { quote, toFsToolError } from "./fs_tool_error.ts";

/** One allowed root: as declared in the context, and where it really is. */
export interface Root {
  /** The path as the context declares it (what Deno's flags name). */
  readonly declared: string;
  /** The path with every symlink resolved. */
  readonly real: string;
}

/**
 * The workspace as declared and as it really is. Throws a `ToolError` when it does not exist or
 * Deno may not read it. Synchronous: a metadata call takes microseconds, where an asynchronous
 * one costs a thread hop of tens.
 *
 * @returns The workspace root.
 */
export function workspaceRootSync(ctx: ResolvedContext): Root {
  try {
    return { declared: ctx.workspace, real: Deno.realPathSync(ctx.workspace) };
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new ToolError(
        "tool_error",
        `The workspace ${quote(ctx.workspace)} does not exist: the host must create it`,
      );
    }
    throw toFsToolError(error, { access: "read", shown: ctx.workspace, root: ctx.workspace });
  }
}

/**
 * The read-only roots that exist, as declared and as they really are, and whether every declared
 * root resolved. A root Deno may not resolve is kept as declared, so reads under it report the
 * missing flag.
 *
 * @returns The roots that exist, and `complete: false` when one was missing or unresolvable.
 */
export function readOnlyRootsSync(ctx: ResolvedContext): { roots: Root[]; complete: boolean } {
  const roots: Root[] = [];
  let complete = true;
  for (const declared of ctx.readOnlyRoots) {
    try {
      roots.push({ declared, real: Deno.realPathSync(declared) });
    } catch (error) {
      complete = false;
      if (error instanceof Deno.errors.NotFound) continue;
      // Keep a root Deno does not let us resolve: reads under it then report the missing flag,
      // and every other root keeps working.
      if (error instanceof Deno.errors.NotCapable) roots.push({ declared, real: declared });
      else throw toFsToolError(error, { access: "read", shown: declared, root: declared });
    }
  }
  return { roots, complete };
}

/**
 * The first root containing a path, comparing the declared or the real form of the roots.
 *
 * @param where An absolute, normalized `path`, and which form of the roots to compare with
 *   (`kind`); without `kind` (a path as written), the declared forms first, then the real ones.
 * @returns The root, or `undefined`.
 */
export function findRoot(
  roots: readonly Root[],
  where: { path: string; kind?: keyof Root },
): Root | undefined {
  const { path, kind } = where;
  if (kind !== undefined) return roots.find((root) => within(root[kind], path));
  return findRoot(roots, { path, kind: "declared" }) ?? findRoot(roots, { path, kind: "real" });
}

/**
 * The declared root followed by the symlink-free rest of a real path inside its real root: the
 * same file, under the path Deno's flags name.
 *
 * @param root The root containing `real`.
 * @param real A real path inside `root.real`.
 * @returns The path to operate on.
 */
export function underDeclared(root: Root, real: string): string {
  // A canonical root (declared = real): the real path already lies under the declared root (a
  // real path is normalized, so joining the root and the rest gave it back), without the work.
  if (root.real === root.declared) return real;
  const rest = relative(root.real, real);
  return rest === "" ? root.declared : join(root.declared, rest);
}

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

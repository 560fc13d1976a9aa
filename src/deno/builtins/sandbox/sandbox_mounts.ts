import { readOnlyRootsSync, type Root, workspaceRootSync } from "../paths/allowed_roots.ts";
import type { ResolvedContext } from "../builtin_context.ts";
import type { BwrapMount, BwrapOptions } from "../../sandbox/bwrap_command.ts";
import { scanAndContain, scanAndContainNow } from "./planted_repositories.ts";

/** The mounts of a context's sandbox. */
export type SandboxMounts =
  & Pick<BwrapOptions, "readOnlyRoots" | "protectedPaths" | "pinnedDirs">
  & { readonly workspace: BwrapMount };

/**
 * The sandbox's mounts for a context: the workspace (read-write) and the read-only roots, each
 * from its real path onto its declared path, and the existing protected entries at any depth
 * (read-only, with the directories leading to them pinned; see `protectedMountsSteps`). Git
 * repositories that appeared since the workspace's first walk are disabled first
 * (`scanAndContain`): a command may have planted one that git on the host would run.
 *
 * This is the one place that decides what is protected inside bubblewrap. It runs before every
 * sandboxed command and file operation: a session whose mounts differ from the current ones (a
 * `.git` created since it started) is replaced by a fresh one, so protections are re-established
 * at each command's start (see `sandbox_sessions.ts`). The walk is cached per directory.
 *
 * @returns The mounts for `bwrapCommand`.
 */
export async function sandboxMounts(ctx: ResolvedContext): Promise<SandboxMounts> {
  // Synchronous first (this runs before every sandboxed operation, and an asynchronous real
  // path costs several times its work in scheduling); any failure takes the checked way, which
  // says what is wrong.
  const now = sandboxMountsSync(ctx);
  if (now !== undefined) return now;
  // The checked roots: the same real paths, or the error that says what is wrong.
  const workspace = workspaceRootSync(ctx);
  const scan = await scanAndContain(workspace, ctx.protectedPaths);
  return {
    workspace: mount(workspace),
    readOnlyRoots: readOnlyRootsSync(ctx).roots.map(mount),
    protectedPaths: scan.mounts,
    pinnedDirs: scan.pinned,
  };
}

/**
 * {@linkcode sandboxMounts} without a wait, when every root resolves at once (the usual case):
 * the same steps in the same order, and the same errors thrown (a workspace too large to walk).
 * A root that does not resolve, or a walk of the workspace that takes more than a few
 * milliseconds, gives `undefined`: then {@linkcode sandboxMounts} says why, or walks letting the
 * event loop in.
 *
 * Requires `allow-read` permission for the roots.
 *
 * @tags allow-read
 * @returns The mounts, or `undefined` when a root needs the checked way.
 */
export function sandboxMountsSync(ctx: ResolvedContext): SandboxMounts | undefined {
  const workspace = realRootSync(ctx.workspace);
  if (workspace === undefined) return undefined;
  // A walk longer than a few milliseconds takes the asynchronous way, which lets the event loop in.
  const scan = scanAndContainNow(workspace, ctx.protectedPaths);
  if (scan === undefined) return undefined;
  const readOnly: { source: string; dest: string }[] = [];
  for (const declared of ctx.readOnlyRoots) {
    const root = realRootSync(declared);
    if (root === undefined) return undefined;
    readOnly.push(mount(root));
  }
  return {
    workspace: mount(workspace),
    readOnlyRoots: readOnly,
    protectedPaths: scan.mounts,
    pinnedDirs: scan.pinned,
  };
}

function mount(root: Root): { source: string; dest: string } {
  return { source: root.real, dest: root.declared };
}

function realRootSync(declared: string): Root | undefined {
  try {
    return { declared, real: Deno.realPathSync(declared) };
  } catch {
    return undefined;
  }
}

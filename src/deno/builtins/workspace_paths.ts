import { isAbsolute, join, normalize, relative } from "pathe";
import { ToolError } from "../../core/tool_error.ts";
import type { ResolvedContext } from "./builtin_context.ts";
import { quote, toFsToolError } from "./fs_tool_error.ts";
import { realTarget } from "./real_path.ts";

/** A path a tool may use, after both containment checks. */
export interface ResolvedPath {
  /**
   * The path to operate on: the declared root followed by the rest of the real path, so it
   * contains no symlink below the root and stays within Deno flags that name the root.
   */
  readonly real: string;
  /** The path for results: relative to the workspace when inside it, else absolute. */
  readonly display: string;
  /** The declared root the path belongs to (the value a Deno flag would name). */
  readonly root: string;
}

/** One allowed root: as declared in the context, and where it really is. */
interface Root {
  readonly declared: string;
  readonly real: string;
}

/**
 * Resolves a path the model gave for reading: inside the workspace or a read-only root, both
 * as written and after following symlinks. Throws a `ToolError`: `invalid_arguments` for an
 * empty path, a NUL byte or `~`; `permission_denied` (`outside allowed roots`) otherwise.
 *
 * @param ctx The request's context.
 * @param path The path as the model gave it, relative to the workspace or absolute.
 * @returns The checked path.
 */
export async function resolveReadPath(ctx: ResolvedContext, path: unknown): Promise<ResolvedPath> {
  const shown = checkInput(path);
  const workspace = await workspaceRoot(ctx);
  const roots = [workspace, ...await readOnlyRoots(ctx)];
  const lexical = lexicalPath(ctx, shown);
  const root = findRoot(roots, lexical, "declared") ?? findRoot(roots, lexical, "real");
  if (root === undefined) throw outside(shown, "reads", false, ctx);
  const real = await realOf(ctx, lexical, shown, "read", root.declared);
  const realRoot = findRoot(roots, real, "real");
  if (realRoot === undefined) throw outside(shown, "reads", true, ctx);
  return {
    real: underDeclared(realRoot, real),
    display: displayOf(workspace, lexical),
    root: realRoot.declared,
  };
}

/**
 * Resolves a path the model gave for writing: inside the workspace and outside its protected
 * paths, both as written and after following symlinks (for a new file, its nearest existing
 * parent). Throws a `ToolError` like {@linkcode resolveReadPath}, saying `read-only` for a
 * read-only root or a protected path.
 *
 * @param ctx The request's context.
 * @param path The path as the model gave it.
 * @returns The checked path.
 */
export async function resolveWritePath(ctx: ResolvedContext, path: unknown): Promise<ResolvedPath> {
  const shown = checkInput(path);
  const workspace = await workspaceRoot(ctx);
  const lexical = lexicalPath(ctx, shown);
  if (!findRoot([workspace], lexical, "declared") && !findRoot([workspace], lexical, "real")) {
    const roots = await readOnlyRoots(ctx);
    const readOnly = findRoot(roots, lexical, "declared") ?? findRoot(roots, lexical, "real");
    throw readOnly === undefined ? outside(shown, "writes") : readOnlyError(shown);
  }
  checkProtected(ctx, relative(lexicalBase(workspace, lexical), lexical), shown);
  const real = await realOf(ctx, lexical, shown, "write", workspace.declared);
  if (findRoot([workspace], real, "real") === undefined) {
    const readOnly = findRoot(await readOnlyRoots(ctx), real, "real");
    throw readOnly === undefined ? outside(shown, "writes", true) : readOnlyError(shown);
  }
  checkProtected(ctx, relative(workspace.real, real), shown);
  for (const protectedPath of ctx.protectedPaths) {
    const protectedReal = await realOf(
      ctx,
      join(workspace.declared, protectedPath),
      shown,
      "write",
      workspace.declared,
    );
    if (within(protectedReal, real)) throw protectedError(shown, protectedPath);
  }
  return {
    real: underDeclared(workspace, real),
    display: displayOf(workspace, lexical),
    root: workspace.declared,
  };
}

/**
 * Resolves a working directory for a command: like {@linkcode resolveReadPath}, and it must be
 * an existing directory. An absent or empty path means the workspace.
 *
 * @param ctx The request's context.
 * @param path The directory as the model gave it, or `undefined`.
 * @returns The checked directory.
 */
export async function resolveDirectory(
  ctx: ResolvedContext,
  path: unknown,
): Promise<ResolvedPath> {
  const resolved = await resolveReadPath(ctx, path === undefined || path === "" ? "." : path);
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(resolved.real);
  } catch (error) {
    throw toFsToolError(error, { access: "read", shown: String(path), root: resolved.root });
  }
  if (!info.isDirectory) {
    throw new ToolError("tool_error", `Path ${quote(String(path))} is not a directory`);
  }
  return resolved;
}

/**
 * The real paths of the workspace and the read-only roots that exist, for sandboxes that bind
 * them (such as bubblewrap). Throws a `ToolError` when the workspace does not exist.
 *
 * @param ctx The request's context.
 * @returns The real workspace and the real read-only roots.
 */
export async function realRoots(
  ctx: ResolvedContext,
): Promise<{ workspace: string; readOnlyRoots: string[] }> {
  const workspace = await workspaceRoot(ctx);
  return {
    workspace: workspace.real,
    readOnlyRoots: (await readOnlyRoots(ctx)).map((r) => r.real),
  };
}

/**
 * Returns whether `path` is `root` or inside it, comparing whole path components
 * (`/ws_evil` is not inside `/ws`). Both must be absolute and normalized.
 *
 * @param root The root.
 * @param path The path.
 * @returns `true` when inside.
 */
export function within(root: string, path: string): boolean {
  return path === root || path.startsWith(root === "/" ? "/" : `${root}/`);
}

function checkInput(path: unknown): string {
  if (typeof path !== "string" || path.length === 0) {
    throw new ToolError(
      "invalid_arguments",
      '"path" must be a non-empty string, such as "src/main.ts"',
    );
  }
  if (path.includes("\0")) {
    throw new ToolError("invalid_arguments", '"path" must not contain NUL bytes');
  }
  if (path.startsWith("~")) {
    throw new ToolError(
      "invalid_arguments",
      `Path ${
        quote(path)
      } starts with "~", which is not expanded: give a path relative to the workspace`,
    );
  }
  return path;
}

function lexicalPath(ctx: ResolvedContext, path: string): string {
  const full = isAbsolute(path) ? normalize(path) : join(ctx.workspace, path);
  return full.length > 1 && full.endsWith("/") ? full.slice(0, -1) : full;
}

function lexicalBase(workspace: Root, lexical: string): string {
  return within(workspace.declared, lexical) ? workspace.declared : workspace.real;
}

async function workspaceRoot(ctx: ResolvedContext): Promise<Root> {
  try {
    return { declared: ctx.workspace, real: await Deno.realPath(ctx.workspace) };
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

async function readOnlyRoots(ctx: ResolvedContext): Promise<Root[]> {
  const roots: Root[] = [];
  for (const declared of ctx.readOnlyRoots) {
    try {
      roots.push({ declared, real: await Deno.realPath(declared) });
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) continue;
      // Keep a root Deno does not let us resolve: reads under it then report the missing flag,
      // and every other root keeps working.
      if (error instanceof Deno.errors.NotCapable) roots.push({ declared, real: declared });
      else throw toFsToolError(error, { access: "read", shown: declared, root: declared });
    }
  }
  return roots;
}

function findRoot(roots: readonly Root[], path: string, kind: keyof Root): Root | undefined {
  return roots.find((root) => within(root[kind], path));
}

async function realOf(
  ctx: ResolvedContext,
  lexical: string,
  shown: string,
  access: "read" | "write",
  root: string,
): Promise<string> {
  try {
    return await realTarget(lexical);
  } catch (error) {
    // The roots themselves resolved, so Deno refusing a step means a symlink led elsewhere.
    if (error instanceof Deno.errors.NotCapable) {
      throw outside(shown, access === "read" ? "reads" : "writes", true, ctx);
    }
    throw toFsToolError(error, { access, shown, root });
  }
}

function checkProtected(ctx: ResolvedContext, rel: string, shown: string): void {
  const lower = rel.toLowerCase();
  for (const protectedPath of ctx.protectedPaths) {
    if (within(protectedPath.toLowerCase(), lower)) throw protectedError(shown, protectedPath);
  }
}

/** The declared root followed by the symlink-free rest of a real path inside its real root. */
function underDeclared(root: Root, real: string): string {
  const rest = relative(root.real, real);
  return rest === "" ? root.declared : join(root.declared, rest);
}

function displayOf(workspace: Root, lexical: string): string {
  for (const base of [workspace.declared, workspace.real]) {
    if (within(base, lexical)) return relative(base, lexical) || ".";
  }
  return lexical;
}

function outside(
  shown: string,
  what: "reads" | "writes",
  viaLink = false,
  ctx?: ResolvedContext,
): ToolError {
  const allowed = what === "reads" && (ctx?.readOnlyRoots.length ?? 0) > 0
    ? "the workspace and the read-only roots"
    : "the workspace";
  return new ToolError(
    "permission_denied",
    `Path ${quote(shown)} ${
      viaLink ? "resolves (through a symbolic link) " : "is "
    }outside allowed roots: ${what} are allowed only inside ${allowed}; give a path relative to the workspace`,
  );
}

function readOnlyError(shown: string): ToolError {
  return new ToolError(
    "permission_denied",
    `Path ${quote(shown)} is read-only: writes are allowed only inside the workspace`,
  );
}

function protectedError(shown: string, protectedPath: string): ToolError {
  return new ToolError(
    "permission_denied",
    `Path ${quote(shown)} is read-only: ${
      quote(protectedPath)
    } is protected from writes in this workspace`,
  );
}

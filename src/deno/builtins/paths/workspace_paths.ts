import { basename, dirname, isAbsolute, join, normalize, relative, resolve } from "@std/path";
import { ToolError } from "../../../core/tool_error.ts";
import type { ResolvedContext } from "../builtin_context.ts";
import { quote, toFsToolError } from "./fs_tool_error.ts";
import { within } from "../../sandbox/within.ts";
import { contextRoots, findRoot, type Root, underDeclared } from "./allowed_roots.ts";
import { protectedMatch } from "./protected_match.ts";
import { checkGitSignatures } from "./git_signature.ts";
import { lstatSyncOrUndefined, realPathOrUndefined } from "./fs_probes.ts";

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

/**
 * Resolves a path the model gave for reading: inside the workspace or a read-only root, both
 * as written and after following symlinks. Throws a `ToolError`: `invalid_arguments` for an
 * empty path, a NUL byte or `~`; `permission_denied` (`outside allowed roots`) otherwise.
 * Synchronous, as every path check here: its few metadata calls take microseconds, an
 * asynchronous one waits for the event loop far longer.
 *
 * @param path The path as the model gave it, relative to the workspace or absolute.
 * @returns The checked path.
 */
export function resolveReadPath(ctx: ResolvedContext, path: unknown): ResolvedPath {
  return resolveInRoots(ctx, checkPathInput(path), true);
}

/**
 * Resolves a path the model gave for writing: inside the workspace and outside its protected
 * paths, both as written and after following symlinks (for a new file, its nearest existing
 * parent). Throws a `ToolError` like {@linkcode resolveReadPath}, saying `read-only` for a
 * read-only root or a protected path.
 *
 * @param path The path as the model gave it.
 * @returns The checked path.
 */
export function resolveWritePath(ctx: ResolvedContext, path: unknown): ResolvedPath {
  const shown = checkPathInput(path);
  const { workspace, readOnly: roots } = contextRoots(ctx);
  const lexical = lexicalPath(ctx, shown);
  // The more specific root wins: a read-only root inside the workspace (a vendored directory)
  // is read-only, a read-only root around it (the home directory) does not affect it.
  const nested = roots.filter((root) => within(workspace.real, root.real));
  if (findRoot([workspace], { path: lexical }) === undefined) {
    const readOnly = findRoot(roots, { path: lexical });
    throw readOnly === undefined ? outsideError(shown, "writes") : readOnlyError(shown);
  }
  if (findRoot(nested, { path: lexical }) !== undefined) throw readOnlyError(shown);
  const lexicalRoot = lexicalBase(workspace, lexical);
  const lexicalRel = relative(lexicalRoot, lexical);
  checkProtected(ctx, lexicalRel, shown);
  const real = realOf(ctx, lexical, shown, "write", workspace.declared);
  if (findRoot(nested, { path: real, kind: "real" }) !== undefined) throw readOnlyError(shown);
  if (findRoot([workspace], { path: real, kind: "real" }) === undefined) {
    const readOnly = findRoot(roots, { path: real, kind: "real" });
    throw readOnly === undefined
      ? outsideError(shown, "writes", { viaLink: true })
      : readOnlyError(shown);
  }
  const realRel = relative(workspace.real, real);
  checkProtected(ctx, realRel, shown);
  // Git directory signatures are refused whatever protectedPaths says (see git_signature.ts).
  checkGitSignatures(lexicalRoot, [{ rel: lexicalRel, shown }]);
  if (realRel !== lexicalRel || lexicalRoot !== workspace.real) {
    checkGitSignatures(workspace.real, [{ rel: realRel, shown }]);
  }
  for (const protectedPath of ctx.protectedPaths) {
    const lexicalProtected = join(workspace.declared, protectedPath);
    // Synchronous: serve protects its whole start-up graph (hundreds of paths), and one
    // asynchronous call each made a write cost tens of milliseconds more. Absent or refused:
    // realOf decides.
    const protectedReal = realPathOrUndefined(lexicalProtected) ?? realOf(
      ctx,
      lexicalProtected,
      shown,
      "write",
      workspace.declared,
    );
    if (within(protectedReal, real)) throw readOnlyError(shown, protectedPath);
  }
  return {
    real: underDeclared(workspace, real),
    display: displayOf(workspace, lexical),
    root: workspace.declared,
  };
}

/**
 * Resolves a working directory for a command: an existing directory inside the workspace (not
 * a read-only root), checked like {@linkcode resolveReadPath}. An absent or empty path means
 * the workspace.
 *
 * @param path The directory as the model gave it, or `undefined`.
 * @returns The checked directory.
 */
export function resolveDirectory(ctx: ResolvedContext, path: unknown): ResolvedPath {
  const shown = path === undefined || path === "" ? "." : checkPathInput(path);
  const resolved = resolveInRoots(ctx, shown, false);
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(resolved.real);
  } catch (error) {
    throw toFsToolError(error, { access: "read", shown, root: resolved.root });
  }
  if (!info.isDirectory) {
    throw new ToolError("tool_error", `Path ${quote(shown)} is not a directory`);
  }
  return resolved;
}

/** Resolves a checked path inside the workspace, or also the read-only roots when reading. */
function resolveInRoots(
  ctx: ResolvedContext,
  shown: string,
  reading: boolean,
): ResolvedPath {
  const what = reading ? "reads" : "commands";
  const { workspace, readOnly } = contextRoots(ctx);
  const roots = reading ? [workspace, ...readOnly] : [workspace];
  const lexical = lexicalPath(ctx, shown);
  const root = findRoot(roots, { path: lexical });
  if (root === undefined) throw outsideError(shown, what, { viaLink: false, ctx });
  const real = realOf(ctx, lexical, shown, "read", root.declared, what);
  const realRoot = findRoot(roots, { path: real, kind: "real" });
  if (realRoot === undefined) throw outsideError(shown, what, { viaLink: true, ctx });
  return {
    real: underDeclared(realRoot, real),
    display: displayOf(workspace, lexical),
    root: realRoot.declared,
  };
}

function lexicalPath(ctx: ResolvedContext, given: string): string {
  // The workspace itself (a command's default directory): the context keeps it normalized.
  if (given === ".") return ctx.workspace;
  // A backslash is a separator, as pathe (used before @std/path) read it: `..\secret` is `../secret`.
  const path = given.replaceAll("\\", "/");
  const full = isAbsolute(path) ? normalize(path) : join(ctx.workspace, path);
  return full.length > 1 && full.endsWith("/") ? full.slice(0, -1) : full;
}

function lexicalBase(workspace: Root, lexical: string): string {
  return within(workspace.declared, lexical) ? workspace.declared : workspace.real;
}

function realOf(
  ctx: ResolvedContext,
  lexical: string,
  shown: string,
  access: "read" | "write",
  root: string,
  what: "reads" | "writes" | "commands" = access === "read" ? "reads" : "writes",
): string {
  try {
    return realTargetSync(lexical);
  } catch (error) {
    // The roots themselves resolved, so Deno refusing a step means a symlink led elsewhere.
    if (error instanceof Deno.errors.NotCapable) {
      throw outsideError(shown, what, { viaLink: true, ctx });
    }
    throw toFsToolError(error, { access, shown, root });
  }
}

const MAX_LINKS = 40;

/**
 * Returns where a path really leads: symlinks resolved, also for a path that does not exist yet
 * (its nearest existing parent is resolved and the rest appended) and for a dangling symlink
 * (its target is followed as the operating system would when creating the file).
 *
 * Deno's permission check does not follow symlinks, so containment must be checked on this path.
 * Throws what `Deno.realPath`, `Deno.lstat` or `Deno.readLink` throw, other than `NotFound`,
 * and a `Deno.errors.FilesystemLoop` for more than 40 links.
 *
 * Synchronous: the path checks make a few metadata calls per tool call, and an asynchronous one
 * costs a thread hop of several times its work (none of them opens a file, so a FIFO cannot
 * block them).
 *
 * @param path An absolute, normalized path.
 * @param links The links followed so far.
 * @returns The absolute real path.
 */
export function realTargetSync(path: string, links = 0): string {
  if (links > MAX_LINKS) throw new Deno.errors.FilesystemLoop("Too many levels of symbolic links");
  try {
    return Deno.realPathSync(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  const info = lstatSyncOrUndefined(path);
  if (info?.isSymlink) {
    // A dangling link: creating the path would create the link's target.
    const target = Deno.readLinkSync(path);
    return realTargetSync(resolve(dirname(path), target), links + 1);
  }
  const parent = dirname(path);
  if (parent === path) return path;
  return join(realTargetSync(parent, links), basename(path));
}

/**
 * Refuses a workspace-relative path under a protected path, ignoring case. A protected name
 * without a slash (the default `.git`) is protected at any depth, like a `.gitignore` pattern, so
 * the hooks of a nested repository (`vendor/lib/.git/hooks`) are protected too.
 */
function checkProtected(ctx: ResolvedContext, rel: string, shown: string): void {
  const hit = protectedMatch(rel, ctx.protectedPaths);
  if (hit !== undefined) throw readOnlyError(shown, hit);
}

function displayOf(workspace: Root, lexical: string): string {
  for (const base of [workspace.declared, workspace.real]) {
    if (within(base, lexical)) return below(base, lexical);
  }
  return lexical;
}

/**
 * `relative(base, path) || "."` for a normalized path within `base` (as `lexicalPath` makes
 * them): the rest after the base's separator, without resolving either again.
 */
function below(base: string, path: string): string {
  if (path === base) return ".";
  return path.slice(base === "/" ? 1 : base.length + 1);
}

/**
 * Checks a path argument: a non-empty string without NUL bytes, not starting with `~`. Throws a
 * `ToolError` (`invalid_arguments`) otherwise.
 */
export function checkPathInput(path: unknown): string {
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

/**
 * The error for a path outside the allowed roots; it never names where a symlink leads.
 *
 * @param what What was refused: reads, writes, or running commands in a directory.
 * @param options Whether the path leaves only after following symlinks (`viaLink`), and the context (`ctx`), to say whether read-only roots exist.
 * @returns The `permission_denied` error.
 */
export function outsideError(
  shown: string,
  what: "reads" | "writes" | "commands",
  options: { viaLink?: boolean; ctx?: ResolvedContext } = {},
): ToolError {
  const { viaLink = false, ctx } = options;
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

/**
 * The error for a write to a read-only root, or (given the protected path it falls under) to a
 * protected path.
 *
 * @returns The `permission_denied` error.
 */
export function readOnlyError(shown: string, protectedPath?: string): ToolError {
  return new ToolError(
    "permission_denied",
    `Path ${quote(shown)} is read-only: ${
      protectedPath === undefined
        ? "writes are allowed only inside the workspace"
        : `${quote(protectedPath)} is protected from writes in this workspace`
    }`,
  );
}

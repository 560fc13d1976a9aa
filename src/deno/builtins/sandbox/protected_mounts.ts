import { basename, join, relative } from "@std/path";
import { ToolError } from "../../../core/tool_error.ts";
import { within } from "../../sandbox/within.ts";
import { type Root, underDeclared } from "../paths/allowed_roots.ts";
import { normalizeComponent, protectedChildMatch } from "../paths/protected_match.ts";
import { isGitSignature } from "../paths/git_signature.ts";
import type { BwrapMount } from "../../sandbox/bwrap_command.ts";
import { readDirStep, type WalkSteps } from "../../sandbox/walk_steps.ts";
import {
  identityOf,
  lstatOrUndefined,
  readDirOrEmpty,
  realPathOrUndefined,
} from "../paths/fs_probes.ts";
import { type GitSignatureFound, isGitDirEntry, signatureOf } from "./_git_signatures.ts";

/** Options of {@linkcode protectedMountsSteps}. */
export interface ProtectedMountsOptions {
  /**
   * Most directories a command's sandbox is prepared for; more is refused (the command does not
   * run): the walk goes on to the end (every repository is found) and sets `overflow`. Default:
   * 50,000.
   */
  readonly maxDirectories?: number;
  /** The cache to reuse between calls; default: one cache per process. */
  readonly cache?: ProtectedScanCache;
  /** The clock, in epoch milliseconds; default `Date.now` (tests move it). */
  readonly now?: () => number;
}

/** The protected entries of a workspace, and what finding them cost. */
export interface ProtectedScan {
  /** Each existing protected entry, real path onto declared path: bind these read-only. */
  readonly mounts: BwrapMount[];
  /** The directories between the workspace and each mount: bind each onto itself (read-write). */
  readonly pinned: BwrapMount[];
  /** Directories visited (one `lstat` each). */
  readonly directories: number;
  /** Directories whose entries were read (`readDir`): the others came from the cache. */
  readonly listed: number;
  /**
   * Every git directory signature found (see `git_signature.ts`): a folder holding `HEAD` beside
   * `objects/`, `refs/` or `commondir`, or any other `.git` (file, link, or a folder that is no repository); relative to the workspace (`""` for the
   * workspace itself), with its `dev:ino`.
   */
  readonly signatures: readonly GitSignatureFound[];
  /**
   * Why no sandbox can bind these mounts (more protected entries than it binds, or more
   * directories than `maxDirectories`): throw it before running anything. The scan is complete
   * all the same: the containment walk must still see every repository in the workspace.
   */
  readonly overflow?: ToolError;
}

interface DirEntryCache {
  readonly ino: number | null;
  readonly ctime: number;
  readonly mtime: number;
  /** When the entries were read (`Date.now()`): a change after it has a later ctime. */
  readonly listedAt: number;
  readonly subdirs: readonly string[];
  readonly hits: readonly string[];
  /** The directory is itself a git directory signature. */
  readonly signature: boolean;
}

/** Per workspace and protected set: each directory's identity and what its entries were. */
export type ProtectedScanCache = Map<string, Map<string, DirEntryCache>>;

/**
 * Most protected entries and pinned directories bound in one sandbox; more refuses the command
 * (bubblewrap takes at most 9,000 arguments: three per mount, two more for its check).
 */
export const MAX_PROTECTED_ENTRIES = 1_500;

/** The default directory bound of {@linkcode protectedMountsSteps}. */
export const MAX_PROTECTED_SCAN_DIRECTORIES = 50_000;

/**
 * A directory changed this recently may change again within the same timestamp tick (Deno
 * reports ctime in whole seconds): what was read of its entries is not trusted, as git treats a
 * "racy" index. A listing is reused only when the folder's ctime second `C` (floored) is below
 * `listedAt - RACY_MS`, `listedAt` taken before the read: a change the read missed comes later,
 * and the kernel stamps it from its coarse clock, which lags `Date.now()` by at most a few ticks
 * (10 ms each at the lowest common rate), so at `listedAt - 100` or after, which is `C + 1000`
 * or after: another second, another ctime, whatever the command did to mtime (`utimes` cannot
 * set ctime). Assumed: ctime is stamped by this kernel's clock in steps of at most a second (not
 * a network share whose server's clock lags, nor MS-DOS FAT's 2 s steps).
 */
export const RACY_MS = 1_100;
const processCache: ProtectedScanCache = new Map();
const MAX_CACHED_WORKSPACES = 64;

// Directories walked between two chances for the driver to pause (`walk_steps.ts`).
const DIRECTORIES_PER_STEP = 16;
// A folder this large (in bytes of its own entries) is listed through the walk's driver.
const LARGE_FOLDER_BYTES = 32 * 1024;
// Entries of one folder matched between two chances to pause.
const ENTRIES_PER_STEP = 512;

/**
 * Finds every existing protected entry of a workspace at any depth, exactly as the file tools
 * match them (`protectedMatch`: any case, trailing dots and spaces), for read-only binds over the
 * sandbox's workspace. Call it at the start of each command: what exists then is read-only for it.
 *
 * The walk follows no symlink and stops at a protected entry. A protected entry that is a symlink
 * is bound at its real target when that lies inside the workspace (elsewhere the sandbox cannot
 * write it anyway). The directories leading to each entry are returned too (`pinned`): bound onto
 * themselves they are mount points, which a command cannot rename away. Each mount carries the
 * `dev:ino` found here, which the sandbox checks before the command runs. A directory whose
 * inode and change and modification times are unchanged since the last walk, and older than a
 * few seconds (`ctime`, which no unprivileged process can set back, has whole-second precision
 * in Deno), is not read again: a repeated walk costs one `lstat` per directory. More than
 * `maxDirectories` directories, or more mounts than a sandbox binds, set `overflow` (a
 * `ToolError`, `tool_error`) for the caller to throw: the command must not run half protected.
 *
 * The walk is steps (`walk_steps.ts`): run them at once (`runSteps`, every step is a metadata
 * call) or with the event loop let in between (`runStepsYielding`).
 *
 * Requires `allow-read` permission for the workspace.
 *
 * @tags allow-read
 * @param protectedPaths The context's protected paths, relative to the workspace.
 * @param options The bound and the cache.
 * @returns The walk, whose result is the mounts and the cost of finding them.
 */
export function* protectedMountsSteps(
  workspace: Root,
  protectedPaths: readonly string[],
  options: ProtectedMountsOptions = {},
): WalkSteps<ProtectedScan> {
  const max = options.maxDirectories ?? MAX_PROTECTED_SCAN_DIRECTORIES;
  const cacheRoot = options.cache ?? processCache;
  const key = `${workspace.real}\0${protectedPaths.join("\0")}`;
  const previous = cacheRoot.get(key) ?? new Map<string, DirEntryCache>();
  const next = new Map<string, DirEntryCache>();
  const hits: string[] = [];
  const belowHits: string[] = [];
  const signatureDirs: string[] = [];
  let directories = 0;
  let listed = 0;
  const stack = [""];
  // Folders below a protected folder: bound read-only with it, so they add no mount, but a
  // protected folder that did not exist when a command started was not bound, and the command
  // may have planted a repository inside it (reached later through a link, or opened by the user).
  // They are walked for git directory signatures only.
  const below = new Set<string>();
  let overflow: ToolError | undefined;
  const base = workspace.real === "/" ? "" : workspace.real;
  while (stack.length > 0) {
    const rel = stack.pop()!;
    if (++directories > max && overflow === undefined) {
      // The containment walk goes on to the end: a repository planted past the bound must be
      // found as surely as one before it (the bound only refuses the next command).
      overflow = tooLarge(workspace.declared, max);
    }
    if (directories % DIRECTORIES_PER_STEP === 0) yield;
    // `rel` is names of listed entries joined by "/": appended as it is, not normalized again.
    const path = rel === "" ? workspace.real : `${base}/${rel}`;
    const info = lstatOrUndefined(path);
    if (info === undefined || !info.isDirectory) continue;
    const ctime = info.ctime?.getTime() ?? Number.NaN;
    const mtime = info.mtime?.getTime() ?? Number.NaN;
    const old = previous.get(rel);
    let entry: DirEntryCache;
    if (
      old !== undefined && old.ino === info.ino && old.ctime === ctime && old.mtime === mtime &&
      // Judged at the listing's time, not now: a listing taken in the second of a change could
      // miss a second change within that second, whose ctime is the same.
      ctime < old.listedAt - RACY_MS
    ) {
      entry = old;
    } else {
      listed++;
      const listedAt = (options.now ?? Date.now)();
      entry = yield* listDirectory(path, rel, protectedPaths, info.size, {
        ino: info.ino,
        ctime,
        mtime,
        listedAt,
      });
    }
    next.set(rel, entry);
    if (entry.signature) signatureDirs.push(rel);
    const inside = below.has(rel);
    if (inside) {
      for (const hit of entry.hits) {
        if (!entry.signature) belowHits.push(hit);
      }
    } else hits.push(...entry.hits);
    if (entry.signature && rel !== "") {
      // A repository is bound whole, but one planted inside another must be found in this
      // walk too (each walk of the containment used to disable one level of a nested plant).
      for (const item of readDirOrEmpty(path)) {
        const child = `${rel}/${item.name}`;
        if (normalizeComponent(item.name) === ".git") belowHits.push(child);
        else if (item.isDirectory && !item.isSymlink) {
          below.add(child);
          stack.push(child);
        }
      }
    }
    for (const hit of entry.signature ? [] : entry.hits) {
      if (normalizeComponent(basename(hit)) === ".git") continue;
      const info = lstatOrUndefined(join(workspace.real, hit));
      if (info?.isDirectory) {
        below.add(hit);
        stack.push(hit);
      }
    }
    for (const name of entry.subdirs) {
      const child = rel === "" ? name : `${rel}/${name}`;
      if (inside) below.add(child);
      stack.push(child);
    }
  }
  // Most recently walked last; the process cache keeps a bounded number of workspaces.
  cacheRoot.delete(key);
  cacheRoot.set(key, next);
  while (cacheRoot.size > MAX_CACHED_WORKSPACES) cacheRoot.delete(cacheRoot.keys().next().value!);
  if (overflow === undefined && hits.length > MAX_PROTECTED_ENTRIES) {
    overflow = tooManyEntries(workspace.declared);
  }
  const mounts: BwrapMount[] = [];
  const pinned = new Map<string, BwrapMount>();
  let steps = 0;
  const signatureSet = new Set(signatureDirs);
  const signatures = signatureDirs.map((rel): GitSignatureFound => ({
    rel,
    identity: identityOf(lstatOrUndefined(rel === "" ? workspace.real : join(workspace.real, rel))),
    kind: "folder",
  }));
  for (const rel of belowHits) {
    if (++steps % ENTRIES_PER_STEP === 0) yield;
    const found = signatureOf(workspace.real, rel);
    if (found !== undefined) signatures.push(found);
  }
  for (const rel of hits) {
    if (++steps % ENTRIES_PER_STEP === 0) yield;
    // A protected entry that is a repository (a `.git` folder, or a `.git` file) is walked no
    // further, so it is looked at here, at every walk: its own listing is not cached. One `lstat`
    // serves its signature and its mount.
    const info = lstatOrUndefined(join(workspace.real, rel));
    if (!signatureSet.has(rel)) {
      const found = signatureOf(workspace.real, rel, { info });
      if (found !== undefined) signatures.push(found);
    }
    const mount = mountOf(workspace, rel, info);
    if (mount === undefined) continue;
    mounts.push(mount);
    const parts = relative(workspace.real, mount.source).split("/").slice(0, -1);
    for (let i = 1; i <= parts.length; i++) {
      const dir = parts.slice(0, i).join("/");
      if (pinned.has(dir)) continue;
      const source = join(workspace.real, dir);
      const info = lstatOrUndefined(source);
      if (info === undefined || !info.isDirectory) continue;
      pinned.set(dir, { source, dest: join(workspace.declared, dir), identity: identityOf(info) });
    }
  }
  if (overflow === undefined && mounts.length + pinned.size > MAX_PROTECTED_ENTRIES) {
    overflow = tooManyEntries(workspace.declared);
  }
  return {
    mounts,
    pinned: [...pinned.values()],
    directories,
    listed,
    signatures,
    ...(overflow === undefined ? {} : { overflow }),
  };
}

function* listDirectory(
  path: string,
  rel: string,
  protectedPaths: readonly string[],
  size: number,
  identity: Pick<DirEntryCache, "ino" | "ctime" | "mtime" | "listedAt">,
): WalkSteps<DirEntryCache> {
  const subdirs: string[] = [];
  const hits: string[] = [];
  let signature = false;
  try {
    // A folder of thousands of entries (its size says so on common file systems) is listed off
    // the event loop when the walk lets it in; a small one at once (an asynchronous call per
    // folder would cost several times the walk).
    const items = size > LARGE_FOLDER_BYTES
      ? yield* readDirStep(path)
      : [...Deno.readDirSync(path)];
    signature = isGitSignature(items.map((item) => item.name));
    // A repository below the workspace is bound read-only whole and walked no further; the
    // workspace itself (which cannot be) has its repository entries bound.
    if (signature && rel !== "") return { ...identity, subdirs: [], hits: [rel], signature };
    const protectedEntry = protectedChildMatch(rel, protectedPaths);
    for (let i = 0; i < items.length; i++) {
      if (i % ENTRIES_PER_STEP === ENTRIES_PER_STEP - 1) yield;
      const item = items[i];
      if (protectedEntry(item.name) !== undefined || (signature && isGitDirEntry(item.name))) {
        hits.push(rel === "" ? item.name : `${rel}/${item.name}`);
      } else if (item.isDirectory && !item.isSymlink) subdirs.push(item.name);
    }
  } catch (error) {
    // A directory we may not list (a command ran `chmod 000` on it) could hide a protected entry:
    // it is bound read-only itself, so no command can open it up again and write inside.
    if (error instanceof Deno.errors.PermissionDenied && rel !== "") {
      return { ...identity, subdirs: [], hits: [rel], signature: false };
    }
    // A directory that vanished is no longer there to write through; anything else must stop the
    // command.
    if (!(error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory)) {
      throw error;
    }
  }
  return { ...identity, subdirs, hits, signature };
}

// Synchronous like the walk: every workspace with a repository has a `.git` here, and one
// asynchronous `lstat` waited for the event loop longer than the rest of the scan took.
function mountOf(
  workspace: Root,
  rel: string,
  info: Deno.FileInfo | undefined,
): BwrapMount | undefined {
  const source = join(workspace.real, rel);
  if (info === undefined) return undefined;
  if (!info.isSymlink) {
    return { source, dest: join(workspace.declared, rel), identity: identityOf(info) };
  }
  const target = realPathOrUndefined(source);
  if (target === undefined || !within(workspace.real, target)) return undefined;
  const targetInfo = lstatOrUndefined(target);
  if (targetInfo === undefined) return undefined;
  return {
    source: target,
    dest: underDeclared(workspace, target),
    identity: identityOf(targetInfo),
  };
}

function tooLarge(workspace: string, max: number): ToolError {
  return new ToolError(
    "tool_error",
    `The workspace "${workspace}" has more than ${max} directories: the sandbox cannot make ` +
      "every protected path in it read-only, so the command was not run; use a smaller workspace",
  );
}

function tooManyEntries(workspace: string): ToolError {
  return new ToolError(
    "tool_error",
    `The workspace "${workspace}" needs more than ${MAX_PROTECTED_ENTRIES} read-only mounts for its protected entries (such as nested ".git" folders and the folders leading to them): the sandbox cannot bind them all, so the command was not run; remove some`,
  );
}

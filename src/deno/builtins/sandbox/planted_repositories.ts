import { basename, dirname, join } from "@std/path";
import { ToolError } from "../../../core/tool_error.ts";
import type { ResolvedContext } from "../builtin_context.ts";
import type { Root } from "../paths/allowed_roots.ts";
import { normalizeComponent } from "../paths/protected_match.ts";
import { lexists, lstatOrUndefined } from "../paths/fs_probes.ts";
import { protectedMountsSteps, type ProtectedScan, RACY_MS } from "./protected_mounts.ts";
import type { GitSignatureFound } from "./_git_signatures.ts";
import {
  runSteps,
  runStepsYielding,
  WALK_SLICE_MS,
  type WalkSteps,
} from "../../sandbox/walk_steps.ts";

/** A repository a command created, and what was done to it. */
export interface PlantedRepository {
  /** The folder (or `.git` file), relative to the workspace (`.` for the workspace itself). */
  readonly path: string;
  /** What it was renamed to (relative to the workspace), or why it could not be. */
  readonly outcome: { readonly renamed: string; readonly to: string } | { readonly error: string };
}

// Per workspace (real path): the repositories there before any command ran, by place and
// identity (`signatureKey`). Process-wide, as the walk's cache: every context on that workspace
// shares the facts.
const baselines = new Map<string, Map<string, string>>();
// Per workspace: what was done at a walk that had no command result to report it in.
const unreported = new Map<string, PlantedRepository[]>();

/** Keeps what a walk did for the next bash result's notice ({@linkcode plantedNotice}). */
function keepUnreported(workspaceReal: string, done: readonly PlantedRepository[]): void {
  const list = unreported.get(workspaceReal) ?? [];
  list.push(...done);
  unreported.set(workspaceReal, list);
}

const MAX_WORKSPACES = 64;
// Per workspace and set of protected paths at fixed places: those that existed at the first walk.
const placedBaselines = new Map<string, Set<string>>();
const SUFFIX = ".disabled-by-toolroute";
const MAX_ROUNDS = 256;
// What one notice names; the rest is counted.
const MAX_NAMED = 20;

/**
 * Walks the workspace for its protected entries (`protectedMountsSteps`) and disables every git
 * directory signature that was not there at the first walk of this workspace in this process:
 * bubblewrap cannot refuse a file name, so a command can still create `HEAD` beside `objects/`
 * and `refs/` (or a `.git` file) during its run, and git on the host would then run that
 * folder's config (core.fsmonitor) and hooks by itself. Disabling renames its `HEAD` (or the
 * `.git` file or folder itself) to a name ending in `.disabled-by-toolroute` in the same
 * folder: git no longer sees a repository there, and nothing is deleted. The walk is repeated
 * until nothing new is found (a repository inside a disabled one). A repository that disappears
 * from the baseline is forgotten; one that comes back (another inode) is new.
 *
 * The walk has no bound a command could exceed to hide a repository: past the sandbox's
 * directory bound it goes on to the end (and then refuses the next command). It lets the event
 * loop run every few milliseconds (`runStepsYielding`), and walks of one workspace run one after
 * the other.
 *
 * This is the one mechanism for every sandboxed path: `sandboxMounts` calls it before each
 * command and file operation, the bash tool after each command, every few seconds while a
 * background process runs and when it ends ({@linkcode containAfterCommand}). What it did is
 * kept until a bash result reports it ({@linkcode plantedNotice}). Throws a `ToolError` when a
 * repository could not be disabled: nothing runs before it is.
 *
 * Requires `allow-read` and `allow-write` permission for the workspace.
 *
 * @tags allow-read, allow-write
 * @returns The scan after disabling (its mounts are current).
 */
export function scanAndContain(
  workspace: Root,
  protectedPaths: readonly string[],
): Promise<ProtectedScan> {
  const previous = walking.get(workspace.real) ?? Promise.resolve();
  const walk = previous.then(() => runStepsYielding(containSteps(workspace, protectedPaths)));
  const settled = walk.then(() => {}, () => {});
  walking.set(workspace.real, settled);
  settled.then(() => {
    if (walking.get(workspace.real) === settled) walking.delete(workspace.real);
  });
  return walk;
}

/**
 * {@linkcode scanAndContain} without a wait, for the usual small or unchanged workspace: the same
 * walk run synchronously for at most a few milliseconds. `undefined` when it would take longer
 * or another walk of the workspace is under way: then call {@linkcode scanAndContain}.
 *
 * Requires `allow-read` and `allow-write` permission for the workspace.
 *
 * @tags allow-read, allow-write
 * @returns The scan after disabling, or `undefined`.
 */
export function scanAndContainNow(
  workspace: Root,
  protectedPaths: readonly string[],
): ProtectedScan | undefined {
  if (walking.has(workspace.real)) return undefined;
  return runSteps(containSteps(workspace, protectedPaths), WALK_SLICE_MS);
}

// Per workspace (real path): the walk under way, so that walks never overlap (two would find,
// and try to disable, the same repository).
const walking = new Map<string, Promise<void>>();

/**
 * The walk of {@linkcode scanAndContain} as steps (see `walk_steps.ts`): run to the end, or given
 * up at any step by a quick try, and walked again from the start.
 *
 * @returns The steps, whose value is the scan after disabling.
 */
export function* containSteps(
  workspace: Root,
  protectedPaths: readonly string[],
): WalkSteps<ProtectedScan> {
  // A command can plant a repository and, in the same run, more protected entries (or folders)
  // than a sandbox binds: the repositories are disabled first, and only then is the overflow
  // refused.
  const walk = () => protectedMountsSteps(workspace, protectedPaths);
  const checked = (scan: ProtectedScan): ProtectedScan => {
    if (scan.overflow !== undefined) throw scan.overflow;
    return scan;
  };
  let scan = yield* walk();
  let baseline = baselines.get(workspace.real);
  const placed = anchoredPaths(protectedPaths);
  const placedKey = `${workspace.real}\0${placed.join("\0")}`;
  if (baseline === undefined || !placedBaselines.has(placedKey)) {
    placedBaselines.set(
      placedKey,
      new Set(placed.filter((rel) => lexists(join(workspace.real, rel)))),
    );
    while (placedBaselines.size > MAX_WORKSPACES) {
      placedBaselines.delete(placedBaselines.keys().next().value!);
    }
  }
  if (baseline === undefined) {
    baseline = new Map(scan.signatures.map((found) => [found.rel, signatureKey(found)]));
    baselines.set(workspace.real, baseline);
    while (baselines.size > MAX_WORKSPACES) baselines.delete(baselines.keys().next().value!);
    return checked(scan);
  }
  // A protected file at a fixed place (`./toolroute.lock`, `./deno.json`: start-up and trust
  // files) that was absent is not bound (bubblewrap binds what exists), so a command can create
  // it; toolroute or Deno would read it at the next start. One created since the first walk is
  // renamed aside like a repository.
  const present = placedBaselines.get(placedKey)!;
  // No protected path at a fixed place (the default context's `.git` is at any depth): nothing
  // to look up, so not even the workspace folder's `lstat`.
  const created = placed.length === 0
    ? []
    : createdPlaced(workspace.real, { placed, present, key: placedKey });
  if (created.length > 0) {
    const done = created.map((rel): PlantedRepository => {
      try {
        const full = join(workspace.real, rel);
        return { path: rel, outcome: renameAside(workspace.real, dirname(full), basename(full)) };
      } catch {
        return {
          path: rel,
          outcome: { error: "it changed while being disabled, or the rename failed" },
        };
      }
    });
    keepUnreported(workspace.real, done);
    if (done.some(({ outcome }) => "error" in outcome)) {
      throw new ToolError("tool_error", plantedNotice(workspace.real)!);
    }
    // The walk bound what was created: walk again for the mounts as they are now.
    scan = yield* walk();
  }
  // A disabled repository is walked into at the next round: one planted inside it is found
  // then. Each round disables at least one, so the rounds are bounded by what a command made.
  for (let round = 0;; round++) {
    const present = new Set(scan.signatures.map((found) => found.rel));
    for (const rel of [...baseline.keys()]) if (!present.has(rel)) baseline.delete(rel);
    const planted = scan.signatures.filter((found) =>
      !baseline.has(found.rel) || baseline.get(found.rel) !== signatureKey(found)
    );
    if (planted.length === 0) return checked(scan);
    const done: PlantedRepository[] = [];
    for (const found of planted) {
      const disabled = disable(workspace.real, found);
      // Kept before the pause: a walk run for a few milliseconds only (`scanAndContainNow`) may
      // be left at it, and then walked again from the start, which no longer finds this one.
      keepUnreported(workspace.real, [disabled]);
      done.push(disabled);
      yield;
    }
    if (done.some(({ outcome }) => "error" in outcome) || round >= MAX_ROUNDS) {
      // Left as it is, it stays planted for the next walk; nothing runs meanwhile.
      throw new ToolError("tool_error", plantedNotice(workspace.real)!);
    }
    // The walk's answer named the planted folders as protected entries: walk again.
    scan = yield* walk();
  }
}

// What a baseline compares: the kind with the `dev:ino`. A user's `.git` link is no mount (the
// sandbox binds a link's target, and only inside the workspace), so a command can remove it and
// make a `.git` folder there, which takes the freed inode: the same `dev:ino`, another kind.
function signatureKey(found: GitSignatureFound): string {
  return `${found.kind} ${found.identity}`;
}

// Per workspace and set of placed paths: the workspace folder when its placed names (those not
// in the baseline) were last looked up and all were absent.
const placedChecks = new Map<
  string,
  { ino: number | null; ctime: number; mtime: number; at: number }
>();

/**
 * The placed paths not in the baseline that exist now (`lexists`, at every walk). Those in the
 * workspace folder itself (`./deno.json`) are not looked up again while that folder is unchanged
 * since a look that found none: adding or renaming an entry changes its ctime and mtime, and one
 * changed within `RACY_MS` of that look is looked at again, as the walk's listings are. A name
 * that is absent costs a thrown `NotFound` (tens of microseconds), and a serve context places
 * several (the Deno config candidates, the lock).
 */
function createdPlaced(
  real: string,
  { placed, present, key }: {
    placed: readonly string[];
    present: ReadonlySet<string>;
    key: string;
  },
): string[] {
  const root = lstatOrUndefined(real);
  const ctime = root?.ctime?.getTime() ?? Number.NaN;
  const mtime = root?.mtime?.getTime() ?? Number.NaN;
  const kept = placedChecks.get(key);
  const unchanged = root !== undefined && kept !== undefined && kept.ino === root.ino &&
    kept.ctime === ctime && kept.mtime === mtime && ctime < kept.at - RACY_MS;
  const at = Date.now();
  const created = placed.filter((rel) =>
    !present.has(rel) && !(unchanged && !rel.includes("/")) && lexists(join(real, rel))
  );
  placedChecks.delete(key);
  if (created.length === 0 && root !== undefined) {
    placedChecks.set(key, unchanged ? kept : { ino: root.ino, ctime, mtime, at });
    while (placedChecks.size > MAX_WORKSPACES) {
      placedChecks.delete(placedChecks.keys().next().value!);
    }
  }
  return created;
}

/**
 * Runs {@linkcode scanAndContain} after a sandboxed command (or a background process's end);
 * {@linkcode plantedNotice} then reports what it did. Never rejects: a walk that fails (a
 * workspace too large, a rename refused) is walked again, and refuses, before the next command.
 *
 * @param ctx The context the command ran in.
 * @returns When the walk is done.
 */
export async function containAfterCommand(ctx: ResolvedContext): Promise<void> {
  try {
    const real = Deno.realPathSync(ctx.workspace);
    await scanAndContain({ declared: ctx.workspace, real }, ctx.protectedPaths);
  } catch {
    // Reported by the next walk, before anything else runs.
  }
}

/**
 * Takes what walks of a workspace disabled since the last report, as a notice for the model.
 *
 * @param workspaceReal The workspace's real path.
 * @returns The notice, or `undefined`.
 */
export function plantedNotice(workspaceReal: string): string | undefined {
  const list = unreported.get(workspaceReal);
  if (list === undefined || list.length === 0) return undefined;
  unreported.delete(workspaceReal);
  const lines = list.slice(0, MAX_NAMED).map(({ path, outcome }) =>
    "error" in outcome
      ? `${
        JSON.stringify(path)
      } could not be disabled (${outcome.error}); no command runs until it is`
      : `${JSON.stringify(path)}: renamed ${JSON.stringify(outcome.renamed)} to ${
        JSON.stringify(outcome.to)
      }`
  );
  if (list.length > MAX_NAMED) lines.push(`and ${list.length - MAX_NAMED} more`);
  return "toolroute disabled git repositories that a command created in the workspace " +
    "(a folder holding HEAD beside objects/, refs/ or commondir, or a .git file), and protected " +
    "files it created (such as the lock or deno.json): git on the host would run their config " +
    "and hooks by itself, outside the sandbox, and toolroute or Deno would read the files at the " +
    `next start. Nothing was deleted; a person can review and rename them back. ${
      lines.join("; ")
    }`;
}

function disable(real: string, found: GitSignatureFound): PlantedRepository {
  const path = found.rel === "" ? "." : found.rel;
  const folder = found.rel === "" ? real : join(real, found.rel);
  try {
    // A `.git` (file, or folder: a protected name the walk does not enter) is renamed whole, so
    // the next round walks into it; another folder loses its HEAD, so git no longer sees it.
    if (found.rel !== "" && normalizeComponent(basename(found.rel)) === ".git") {
      return { path, outcome: renameAside(real, dirname(folder), basename(folder)) };
    }
    let outcome: PlantedRepository["outcome"] | undefined;
    for (const entry of Deno.readDirSync(folder)) {
      if (normalizeComponent(entry.name) === "head") {
        outcome = renameAside(real, folder, entry.name);
      }
    }
    return { path, outcome: outcome ?? { error: "it changed while being disabled" } };
  } catch (error) {
    // Never the error's own text: it names host paths.
    const why = error instanceof Deno.errors.NotFound
      ? "it changed while being disabled"
      : error instanceof Deno.errors.PermissionDenied
      ? "the operating system refused the rename"
      : "it changed while being disabled, or the rename failed";
    return { path, outcome: { error: why } };
  }
}

function renameAside(
  real: string,
  folder: string,
  name: string,
): PlantedRepository["outcome"] {
  // Only in a folder reached without a symbolic link (a command that swaps one in between is
  // the documented race; see docs/security.md).
  if (Deno.realPathSync(folder) !== folder) throw new Deno.errors.NotFound();
  let to = `${name}${SUFFIX}`;
  for (let i = 2; lexists(join(folder, to)); i++) to = `${name}${SUFFIX}-${i}`;
  try {
    Deno.renameSync(join(folder, name), join(folder, to));
  } catch (error) {
    if (!(error instanceof Deno.errors.PermissionDenied)) throw error;
    // A command may take the write bit off the folder to keep its repository: the folder is
    // the same user's, so it is given back (nothing else changes) and the rename tried again.
    const mode = Deno.lstatSync(folder).mode ?? 0o755;
    Deno.chmodSync(folder, (mode & 0o7777) | 0o700);
    Deno.renameSync(join(folder, name), join(folder, to));
  }
  const rel = folder === real ? "" : folder.slice(real.length + 1) + "/";
  return { renamed: `${rel}${name}`, to: `${rel}${to}` };
}

// The protected paths at one place (`./name`, `dir/name`), as written, relative to the workspace.
// A `--store` database's `-wal` and `-shm` are left out: the host's own SQLite creates and
// removes them while it runs, and one renamed under it would lose committed writes (they exist,
// bound read-only, while `serve` runs). Its `-journal` is not: the store is in WAL mode, which
// never writes one, yet SQLite replays a planted one as a hot journal at the next open.
function anchoredPaths(protectedPaths: readonly string[]): readonly string[] {
  const kept = anchoredLists.get(protectedPaths);
  if (kept !== undefined) return kept;
  const placed = protectedPaths
    .filter((path) => path.includes("/") && !/-(wal|shm)$/i.test(path))
    .map((path) => path.startsWith("./") ? path.slice(2) : path)
    .filter((path) => path !== "" && !path.split("/").includes(".."));
  // A context's list is frozen: worked out once, not at every walk.
  if (Object.isFrozen(protectedPaths)) anchoredLists.set(protectedPaths, placed);
  return placed;
}

const anchoredLists = new WeakMap<readonly string[], readonly string[]>();

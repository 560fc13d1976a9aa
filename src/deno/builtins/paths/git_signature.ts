import { join } from "@std/path";
import { ToolError } from "../../../core/tool_error.ts";
import { quote } from "./fs_tool_error.ts";
import { normalizeComponent } from "./protected_match.ts";
import { lexists } from "./fs_probes.ts";

// What git looks for when it decides a folder is a repository (`is_git_directory` in git's
// setup.c): `HEAD`, then `objects/` and `refs/` in the folder or in the one its `commondir` file
// names. git >= 2.38 runs such a folder's `config` (core.fsmonitor, hooks) when it meets it
// while walking up from the current directory, bare or not.
const HEAD = "head";
const BESIDE_HEAD = new Set(["objects", "refs", "commondir"]);
const MARKERS = new Set([HEAD, ...BESIDE_HEAD]);
const BESIDE_ON_DISK = ["objects", "refs", "commondir"];
const ON_DISK = ["HEAD", ...BESIDE_ON_DISK];

/**
 * Whether a folder holding these names is a git directory signature: `HEAD` beside `objects`,
 * `refs` or a `commondir` file (one of them is enough: with a `commondir` git takes the other
 * two from elsewhere, and a folder missing one is a signature a single write away). Names are
 * compared ignoring case and trailing dots and spaces, as protected paths are.
 *
 * @param names The names of the folder's entries.
 * @returns `true` for a signature.
 */
export function isGitSignature(names: Iterable<string>): boolean {
  let head = false;
  let beside = false;
  for (const name of names) {
    const normalized = normalizeComponent(name);
    if (normalized === HEAD) head = true;
    else if (BESIDE_HEAD.has(normalized)) beside = true;
    if (head && beside) return true;
  }
  return false;
}

/**
 * Whether a name is one that completes a git directory signature (`HEAD`, `objects`, `refs`,
 * `commondir`, in any case).
 *
 * @returns `true` for a signature name.
 */
export function isSignatureName(name: string): boolean {
  return MARKERS.has(normalizeComponent(name));
}

/**
 * Whether an existing folder is a git directory signature, by the names git itself looks up
 * there (a case-insensitive file system answers for every case, as it does for git).
 *
 * Requires `allow-read` permission for the folder.
 *
 * @tags allow-read
 * @returns `true` for a signature.
 */
export function isGitDirectorySync(dir: string): boolean {
  // HEAD, then what must be beside it until one is found: a repository's own folder, which every
  // walk of a workspace with a repository looks at, costs no look-up of a name it lacks (a
  // failed look-up costs several found ones).
  return lexists(join(dir, "HEAD")) && BESIDE_ON_DISK.some((name) => lexists(join(dir, name)));
}

/**
 * Refuses writes that would put a git directory signature into the workspace or write inside
 * one: a path below a folder that is a signature on disk, or a path whose new entry (`HEAD`,
 * `objects`, `refs`, `commondir`) completes one, counting what is on disk and what the other
 * paths of the same operation create (an `apply_patch` adding `x/HEAD` and `x/objects/a` at
 * once). The workspace itself counts as a folder. Throws a `ToolError` (`permission_denied`).
 *
 * Requires `allow-read` permission for the workspace.
 *
 * @tags allow-read
 * @param root The workspace (declared or real: the paths are below it).
 * @param writes The written paths, relative to `root`, normalized (no `..`), with what the
 *   model called each (for the message).
 */
export function checkGitSignatures(
  root: string,
  writes: readonly { readonly rel: string; readonly shown: string }[],
): void {
  // What the operation itself adds to each folder (normalized names), by folder.
  const pending = new Map<string, Set<string>>();
  const split = writes.map(({ rel, shown }) => ({ parts: rel.split("/"), shown }));
  for (const { parts } of split) {
    for (let i = 0; i < parts.length; i++) {
      const dir = parts.slice(0, i).join("/");
      let names = pending.get(dir);
      if (names === undefined) pending.set(dir, names = new Set());
      names.add(normalizeComponent(parts[i]));
    }
  }
  // Looked up once per folder, HEAD first: most folders have none, and then need nothing more
  // unless the write itself adds a signature name there.
  const heads = new Map<string, boolean>();
  const full = new Map<string, string[]>();
  const pathOf = (dir: string) => dir === "" ? root : join(root, dir);
  const hasHead = (dir: string): boolean => {
    let head = heads.get(dir);
    if (head === undefined) heads.set(dir, head = lexists(join(pathOf(dir), "HEAD")));
    return head;
  };
  const onDisk = (dir: string): string[] => {
    let names = full.get(dir);
    if (names === undefined) {
      names = ON_DISK.filter((name) =>
        name === "HEAD" ? hasHead(dir) : lexists(join(pathOf(dir), name))
      );
      full.set(dir, names);
    }
    return names;
  };
  for (const { parts, shown } of split) {
    for (let i = 0; i < parts.length; i++) {
      const dir = parts.slice(0, i).join("/");
      if (hasHead(dir) && isGitSignature(onDisk(dir))) throw insideError(shown, dir);
      if (!isSignatureName(parts[i])) continue;
      if (isGitSignature([...onDisk(dir), ...pending.get(dir)!])) throw completesError(shown, dir);
    }
  }
}

function insideError(shown: string, dir: string): ToolError {
  return new ToolError(
    "permission_denied",
    `Path ${quote(shown)} is read-only: ${
      quote(dir === "" ? "." : dir)
    } is a git directory (it holds HEAD beside objects/, refs/ or commondir), and git on the host runs what its config and hooks name; write elsewhere`,
  );
}

function completesError(shown: string, dir: string): ToolError {
  return new ToolError(
    "permission_denied",
    `Path ${quote(shown)} is refused: it would make ${
      quote(dir === "" ? "." : dir)
    } a git directory (HEAD beside objects/, refs/ or commondir), whose config and hooks git on the host would run by itself; use other names, or ask the user to create the repository`,
  );
}

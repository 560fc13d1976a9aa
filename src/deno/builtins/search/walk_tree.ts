import { join } from "@std/path";
import { GitignoreRules, RULE_WORK_PER_TICK } from "./gitignore_rules.ts";
import { onTheWay } from "../../sandbox/supervisor/on_the_way.ts";
import { ENTRIES_PER_TICK, type SearchBudget } from "./search_budget.ts";
import { sortedEntries } from "./sorted_entries.ts";

/** One entry of a folder: a regular file, a folder, or anything else (never followed). */
export interface TreeEntry {
  readonly name: string;
  /** `"file"`, `"dir"`, or `"other"` (a symbolic link, FIFO, socket or device). */
  readonly kind: "file" | "dir" | "other";
}

/**
 * A read-only view of a tree under one root: the host's file system, or a listing made inside
 * the sandbox. Paths are relative to the root ("" is the root) and use `/`.
 */
export interface TreeView {
  /**
   * The entries of a folder in any order, or `undefined` when it cannot be read (it is skipped).
   * A long listing is gone through with `pause` between slices of entries: it yields, and throws
   * at the search's limits or once the walk is over (a listing read ahead is then given up).
   */
  list(dir: string, pause: () => Promise<void>): Promise<readonly TreeEntry[] | undefined>;
  /** The text of a folder's `.gitignore` file, or `undefined` when it has none. */
  gitignore(dir: string): string | undefined;
}

/** How many folders' listings the walk reads ahead of the one it enters, a folder's own subfolders. */
const READ_AHEAD = 4;

/** What {@linkcode walkTree} walks. */
export interface WalkOptions {
  /** The folder to start in, relative to the root ("" for the root). */
  readonly start: string;
  /** Apply the `.gitignore` files from the root down (`false` lists ignored files too). */
  readonly gitignore: boolean;
  /** The deepest level of files below `start` to visit (1: only `start`'s own files). */
  readonly maxDepth?: number;
  /** A folder below `start` (relative to it): only it, its parents and what is below it are entered. */
  readonly only?: string;
  /** The limits: checked for every folder and entry. */
  readonly budget: SearchBudget;
}

/**
 * Walks the files of a tree depth-first, the entries of each folder in code-point order of their
 * names, calling `onFile` with each regular file's path relative to the root until it returns
 * `true` (stop). Never enters a folder named `.git` (in any case) nor a symbolic link, and skips
 * what `.gitignore` files exclude (those of `start`'s parent folders from the root down included).
 *
 * @param options The walk's options, and `onFile`, called per file (`true` stops the walk).
 * @returns Whether `onFile` stopped the walk.
 */
export async function walkTree(
  view: TreeView,
  options: WalkOptions & { onFile: (path: string) => boolean | void },
): Promise<boolean> {
  const { onFile, budget } = options;
  const rules = new GitignoreRules();
  if (options.gitignore) {
    const parts = options.start === "" ? [] : options.start.split("/");
    for (let i = 0; i < parts.length; i++) addRules(view, rules, parts.slice(0, i).join("/"));
  }
  const maxDepth = options.maxDepth ?? Infinity;
  const only = onlyFolder(options);
  const tick = () => budget.tick();
  // A step of the walk ends after a slice of entries or, with costly `.gitignore` rules, sooner.
  const step = () => {
    rules.work = 0;
    return tick();
  };
  // A listing read ahead runs beside the walk, which may end first (stopped early, or at the
  // deadline): it stops at its next pause then, instead of reading on for no one after the
  // result was given.
  let over = false;
  const pause = () => over ? Promise.reject(new Error("the walk is over")) : tick();
  // Its error is handled here, and thrown again where the walk awaits it.
  const read = (dir: string) => {
    const listing = view.list(dir, pause);
    listing.catch(() => {});
    return listing;
  };
  const enters = (path: string, name: string, depth: number) =>
    depth < maxDepth && !isGitDir(name) && onTheWay(only, path) &&
    !(options.gitignore && rules.ignored(path, true));
  const visit = async (
    dir: string,
    depth: number,
    listing: Promise<readonly TreeEntry[] | undefined>,
  ): Promise<boolean> => {
    await tick();
    const listed = await listing;
    if (listed === undefined) return false;
    if (options.gitignore) addRules(view, rules, dir);
    // One folder may hold hundreds of thousands of entries: sorted and gone through in slices.
    const entries = await sortedEntries(listed, tick);
    // The subfolders it enters are known before the first is entered (a folder's rules apply
    // only below it): a few of their listings are read ahead, off the loop, while it walks.
    const subfolders: string[] = [];
    let steps = 0;
    for (const entry of entries) {
      if (++steps % ENTRIES_PER_TICK === 0 || rules.work >= RULE_WORK_PER_TICK) await step();
      const path = dir === "" ? entry.name : `${dir}/${entry.name}`;
      if (entry.kind === "dir" && enters(path, entry.name, depth)) subfolders.push(path);
    }
    let entered = 0;
    const ahead: Promise<readonly TreeEntry[] | undefined>[] = [];
    const readAhead = () => {
      while (ahead.length < READ_AHEAD && entered + ahead.length < subfolders.length) {
        ahead.push(read(subfolders[entered + ahead.length]));
      }
    };
    readAhead();
    for (const entry of entries) {
      if (++steps % ENTRIES_PER_TICK === 0 || rules.work >= RULE_WORK_PER_TICK) await step();
      if (entry.kind === "other") continue;
      const path = dir === "" ? entry.name : `${dir}/${entry.name}`;
      if (entry.kind === "dir") {
        if (subfolders[entered] !== path) continue;
        const listing = ahead.shift()!;
        entered++;
        readAhead();
        if (await visit(path, depth + 1, listing)) return true;
      } else if (!isGitDir(entry.name) && !(options.gitignore && rules.ignored(path, false))) {
        if (onFile(path) === true) return true;
      }
    }
    return false;
  };
  try {
    return await visit(options.start, 1, read(options.start));
  } finally {
    over = true;
  }
}

/**
 * The folder a walk keeps to (see {@linkcode WalkOptions.only}), relative to the root: "" for
 * none. A listing made in the sandbox lists the same folders.
 *
 * @param options The walk's start and `only`.
 * @returns The folder, or "".
 */
export function onlyFolder(options: Pick<WalkOptions, "start" | "only">): string {
  return options.only ? join(options.start, options.only) : "";
}

/**
 * Whether a name is `.git` (any case, trailing dots or spaces ignored, as some file systems do).
 *
 * @param name An entry's name.
 * @returns `true` for `.git`.
 */
export function isGitDir(name: string): boolean {
  // Most names do not start with a dot: no lowercasing nor regular expression for them.
  return name.length >= 4 && name.charCodeAt(0) === 0x2e &&
    name.toLowerCase().replace(/[. ]+$/, "") === ".git";
}

function addRules(view: TreeView, rules: GitignoreRules, dir: string): void {
  const text = view.gitignore(dir);
  if (text !== undefined) rules.add(dir, text);
}

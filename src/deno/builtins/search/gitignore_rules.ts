import ignore, { type Ignore } from "ignore";

/**
 * The `.gitignore` files of a tree, each applying to its own folder and below, as git reads them:
 * a deeper file's rules override a shallower one's, the last matching line of a file wins, `!`
 * re-includes, a pattern with a slash is anchored to its file's folder, a trailing slash matches
 * folders only. A file inside an ignored folder cannot be re-included (the walk never enters the
 * folder), as in git. Matching uses the `ignore` package, which follows git's documentation.
 *
 * A line with more than one `**` (a trailing `/**` aside) is skipped: the expression `ignore`
 * builds for it backtracks over the folders of a deep path (`**\/a/**\/b` over 400 folders named
 * `a` takes a third of a second a path, cubic in the depth), and a model can write both the
 * `.gitignore` and the tree. For the same reason a path longer than 1024 characters is not
 * checked (one `**` is still quadratic in the path); the walk
 * never enters an ignored folder, so only a rule about such a deep entry itself is missed.
 *
 * Every rule is tried on every path it applies to, so a check costs the characters of the rules
 * of a path's folder and the folders above it times the path's length: a megabyte of rules took
 * over 100 ms a path, seconds a slice of the walk, on the host's event loop. A folder's rules are
 * kept only up to {@linkcode MAX_RULE_CHARS} with those of the folders above it (its first rules,
 * whole lines; comments and blank lines do not count), which bounds one check, and
 * {@linkcode GitignoreRules.work} counts what the checks cost, for the walk to yield by it.
 * A rule skipped changes only which files a search lists (more, or fewer when it was a `!`
 * re-include): `.gitignore` is a filter of the searches, never a boundary, and whoever writes it
 * decides that list anyway.
 */
export class GitignoreRules {
  #rules = new Map<string, { rules: Ignore; chars: number }>();
  /**
   * What the checks since the walk last set it to 0 cost: for each folder's rules tried, their
   * characters times the path's length and 100.
   */
  work = 0;

  /**
   * Adds the text of the `.gitignore` file of a folder (after those of the folders above it).
   *
   * @param dir The folder, relative to the root of the search ("" for the root).
   */
  add(dir: string, text: string): void {
    const charsOf = (folder: string) => this.#rules.get(folder)?.chars ?? 0;
    // What the folders above it keep: the root's, then each one's on the way.
    let left = MAX_RULE_CHARS - (dir === "" ? 0 : charsOf(""));
    for (let at = dir.indexOf("/"); at >= 0; at = dir.indexOf("/", at + 1)) {
      left -= charsOf(dir.slice(0, at));
    }
    const kept: string[] = [];
    let chars = 0;
    for (const line of text.split(/\r?\n/)) {
      // Comments and blank lines are no rules: they cost no check.
      if (line.trim() === "" || line.startsWith("#") || tooManyGlobstars(line)) continue;
      if (chars + line.length + 1 > left) break;
      kept.push(line);
      chars += line.length + 1;
    }
    if (kept.length === 0) return;
    this.#rules.set(dir, { rules: ignore({ allowRelativePaths: true }).add(kept), chars });
  }

  /**
   * Whether a path is ignored by the rules of its folder and the folders above it.
   *
   * @param path The path, relative to the root of the search, without a leading `./`.
   * @param isDir Whether it is a folder (patterns ending in `/` match only folders).
   * @returns `true` when ignored.
   */
  ignored(path: string, isDir: boolean): boolean {
    if (this.#rules.size === 0 || path.length > MAX_CHECKED_PATH) return false;
    // Deepest folder first: its rules override those above it.
    for (let end = path.lastIndexOf("/");; end = path.lastIndexOf("/", end - 1)) {
      const dir = end < 0 ? "" : path.slice(0, end);
      const found = this.#rules.get(dir);
      if (found !== undefined) {
        const rest = end < 0 ? path : path.slice(end + 1);
        // About a nanosecond a unit: a rule's test costs a microsecond or so, and up to its
        // length times the path's (one `**` of many segments on a long path).
        this.work += found.chars * (rest.length + 100);
        const result = found.rules.test(isDir ? `${rest}/` : rest);
        if (result.ignored) return true;
        if (result.unignored) return false;
      }
      if (end < 0) return false;
    }
  }
}

/** The longest path the rules are checked against (see `GitignoreRules`). */
const MAX_CHECKED_PATH = 1024;

/**
 * The most characters of rules kept for a folder with the folders above it (16 KiB, hundreds of
 * lines: more than common `.gitignore` files hold): one check then costs at most a few
 * milliseconds of common rules, about 25 for rules made to be slow on the longest paths checked.
 */
export const MAX_RULE_CHARS = 16 * 1024;

/**
 * The {@linkcode GitignoreRules.work} after which a walk yields (its tick), whatever the number of
 * entries: a millisecond or two of checks.
 */
export const RULE_WORK_PER_TICK = 1 << 20;

/** Whether a line has more than one `**`, a trailing `/**` not counted. */
function tooManyGlobstars(line: string): boolean {
  const trimmed = line.trimEnd().replace(/\/\*\*$/, "");
  return trimmed.split("**").length > 2;
}

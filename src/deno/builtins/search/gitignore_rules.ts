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
 * Skipping only lists more files: `.gitignore` is a filter of the searches, never a boundary.
 */
export class GitignoreRules {
  #rules = new Map<string, Ignore>();

  /**
   * Adds the text of the `.gitignore` file of a folder.
   *
   * @param dir The folder, relative to the root of the search ("" for the root).
   */
  add(dir: string, text: string): void {
    const lines = text.split(/\r?\n/).filter((line) => !tooManyGlobstars(line));
    const rules = ignore({ allowRelativePaths: true }).add(lines);
    this.#rules.set(dir, rules);
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
      const rules = this.#rules.get(dir);
      if (rules !== undefined) {
        const rest = end < 0 ? path : path.slice(end + 1);
        const result = rules.test(isDir ? `${rest}/` : rest);
        if (result.ignored) return true;
        if (result.unignored) return false;
      }
      if (end < 0) return false;
    }
  }
}

/** The longest path the rules are checked against (see `GitignoreRules`). */
const MAX_CHECKED_PATH = 1024;

/** Whether a line has more than one `**`, a trailing `/**` not counted. */
function tooManyGlobstars(line: string): boolean {
  const trimmed = line.trimEnd().replace(/\/\*\*$/, "");
  return trimmed.split("**").length > 2;
}

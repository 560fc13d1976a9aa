import { globToRegExp } from "@std/path";
import { RE2JS } from "re2js";
import { ToolError } from "../../../core/tool_error.ts";
import { starMatch } from "../../sandbox/supervisor/star_match.ts";

/** The longest glob `glob` and grep's `glob` take. */
export const MAX_GLOB_CHARS = 500;

/** A compiled glob: the literal folder it starts in, how deep it reaches, and its test. */
export interface GlobMatcher {
  /** The leading segments without wildcards ("" for none): the walk enters only them. */
  readonly base: string;
  /** How many levels below the search folder a match can be, when the pattern has no `**`. */
  readonly maxDepth?: number;
  /**
   * The last segment when it uses only `*` (and literal characters): a name filter that `find
   * -name` applies exactly as the glob does (in the C locale `?` would match a byte, not a
   * character, so it is left out).
   */
  readonly name?: string;
  /**
   * Whether a path matches.
   *
   * @param path A path relative to the search folder, with `/`.
   * @returns `true` on a match.
   */
  test(path: string): boolean;
}

const WILD = /[*?[\]{}()!+@\\]/;

/**
 * Compiles a glob: `*` and `?` within one path segment, `**` across segments (also none:
 * `**\/*.ts` matches `a.ts`), `[abc]`, `[!abc]`, `{a,b}` within a segment, `\` escaping the next
 * character. Case-sensitive. No extglob: `@(…)`, `!(…)`, `+(…)`, `*(…)` and `?(…)` are refused
 * (their nested repetition is what backtracks; a `(` or `+` elsewhere is literal). Each segment
 * becomes the expression `@std/path`'s `globToRegExp` writes for it (not extended), run in RE2
 * (linear time), and `**` is matched by stepping through the segments with every position the
 * pattern may be at (linear in the path's segments times the pattern's): no name or path can make
 * a glob backtrack. Throws a `ToolError` (`invalid_arguments`) for an empty or absolute pattern,
 * one with a `..` segment or an extglob, or a segment that is not a valid glob.
 *
 * @param pattern The glob, relative to the search folder.
 * @param field The argument's name, for messages.
 */
export function compileGlob(pattern: string, field: string): GlobMatcher {
  const cleaned = checkGlob(pattern, field);
  // "a//b" and "a/./b" name the path "a/b", which is what the walk gives the test.
  const segments = cleaned.split("/").filter((segment) => segment !== "" && segment !== ".");
  if (segments.length === 0) {
    throw invalid(field, `names only the search folder itself: give a glob such as "**/*.ts"`);
  }
  let literal = 0;
  while (literal < segments.length - 1 && !WILD.test(segments[literal])) literal++;
  const rest = segments.slice(literal);
  return {
    base: segments.slice(0, literal).join("/"),
    maxDepth: rest.some((segment) => segment.includes("**")) ? undefined : segments.length,
    test: segmentMatcher(segments, field),
    name: /^[^?[\]{}()!+@\\]*$/.test(segments.at(-1)!) && !segments.at(-1)!.includes("**")
      ? segments.at(-1)
      : undefined,
  };
}

/**
 * Matches path segments one by one: each segment's own expression (in RE2), and `**` as any
 * number of segments. The match steps through the path's names keeping every position the
 * pattern may be at (a set, not a search), so a pattern of many `**` never retries a name.
 */
function segmentMatcher(segments: readonly string[], field: string): (path: string) => boolean {
  // Each distinct segment compiled once.
  const compiled = new Map<string, (name: string) => boolean>();
  const parts = segments.map((segment) => {
    if (segment === "**") return undefined;
    let test = compiled.get(segment);
    if (test === undefined) compiled.set(segment, test = compileSegment(segment, field));
    return test;
  });
  const count = parts.length;
  // Adds the positions reachable without a name: past each `**` (it may match none).
  const close = (at: Uint8Array) => {
    for (let part = 0; part < count; part++) {
      if (at[part] === 1 && parts[part] === undefined) at[part + 1] = 1;
    }
  };
  return (path) => {
    let at = new Uint8Array(count + 1);
    at[0] = 1;
    close(at);
    for (const name of path.split("/")) {
      const next = new Uint8Array(count + 1);
      let any = false;
      for (let part = 0; part < count; part++) {
        if (at[part] === 0) continue;
        const segment = parts[part];
        if (segment === undefined) next[part] = 1;
        else if (segment(name)) next[part + 1] = 1;
        else continue;
        any = true;
      }
      if (!any) return false;
      close(next);
      at = next;
    }
    return at[count] === 1;
  };
}

/**
 * One segment's test: a literal name compared, `*` and literal characters matched by their parts,
 * anything else (`?`, `[…]`, `{…}`, `\`) by the expression `globToRegExp` writes for it,
 * compiled by RE2.
 */
function compileSegment(segment: string, field: string): (name: string) => boolean {
  if (!/[?[\]{}\\]/.test(segment)) {
    const parts = segment.split("*");
    return (name) => starMatch(parts, name);
  }
  let re2: RE2JS;
  try {
    // Only its source is used: JavaScript's engine never matches with it.
    re2 = RE2JS.compile(globToRegExp(segment, { extended: false, globstar: false }).source);
  } catch {
    throw invalid(
      field,
      `has a segment that is not a valid glob: ${JSON.stringify(segment.slice(0, 200))}; ` +
        "escape [ ] { } * ? with a backslash to match them literally",
    );
  }
  return (name) => re2.testExact(name);
}

/**
 * Compiles the file filter of `grep`: a glob without a slash matches the file's name at any depth
 * (`*.ts`), one with a slash matches the path relative to the search folder (`src/**\/*.ts`).
 * The same glob syntax and matching as {@linkcode compileGlob}.
 *
 * @returns The test of a path relative to the search folder.
 */
export function compileFileFilter(pattern: string): (path: string) => boolean {
  const cleaned = checkGlob(pattern, "glob");
  const test = segmentMatcher(cleaned.split("/").filter((segment) => segment !== ""), "glob");
  if (cleaned.includes("/")) return test;
  return (path) => test(path.slice(path.lastIndexOf("/") + 1));
}

function checkGlob(pattern: string, field: string): string {
  if (pattern.length === 0) throw invalid(field, 'must be a non-empty glob such as "**/*.ts"');
  if (pattern.length > MAX_GLOB_CHARS) {
    throw invalid(
      field,
      `has ${pattern.length} characters, more than the ${MAX_GLOB_CHARS} a glob may have: ` +
        'give the folder as "path" and a shorter pattern',
    );
  }
  if (pattern.includes("\0")) throw invalid(field, "must not contain NUL bytes");
  if (pattern.startsWith("/") || pattern.startsWith("~")) {
    throw invalid(
      field,
      `must be relative to the search folder, received ${JSON.stringify(pattern.slice(0, 200))}: ` +
        'give the folder as "path" and a relative pattern such as "**/*.ts"',
    );
  }
  refuseExtglob(pattern, field);
  const cleaned = pattern.replace(/^(\.\/)+/, "");
  if (cleaned.split("/").includes("..")) {
    throw invalid(field, 'must not contain "..": give the folder to search as "path" instead');
  }
  return cleaned;
}

function invalid(field: string, problem: string): ToolError {
  return new ToolError("invalid_arguments", `"${field}" ${problem}`);
}

/** Refuses an extglob group (`@(`, `!(`, `+(`, `*(`, `?(` outside brackets and escapes). */
function refuseExtglob(pattern: string, field: string): void {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === "\\") i++;
    else if (inClass) inClass = char !== "]";
    else if (char === "[") inClass = true;
    else if ("@!+*?".includes(char) && pattern[i + 1] === "(") {
      throw invalid(
        field,
        `uses extglob syntax "${char}(…)", which is not supported: write {a,b} for alternatives, ` +
          `* and ? for any characters, or escape it (\\${char}\\() to match it literally`,
      );
    }
  }
}

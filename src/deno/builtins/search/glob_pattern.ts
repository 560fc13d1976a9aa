import { globToRegExp } from "@std/path";
import { ToolError } from "../../../core/tool_error.ts";

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
 * Compiles a glob as `@std/path`'s `globToRegExp` does with `globstar` and `extended`: `*` and
 * `?` within one path segment, `**` across segments (also none: `**\/*.ts` matches `a.ts`),
 * `[abc]`, `{a,b}`, and `!(x)`-style groups. Case-sensitive. Throws a `ToolError`
 * (`invalid_arguments`) for an empty or absolute pattern, or one with a `..` segment.
 *
 * @param pattern The glob, relative to the search folder.
 * @param field The argument's name, for messages.
 * @returns The matcher.
 */
export function compileGlob(pattern: string, field: string): GlobMatcher {
  const cleaned = checkGlob(pattern, field);
  const segments = cleaned.split("/").filter((segment) => segment !== "");
  let literal = 0;
  while (literal < segments.length - 1 && !WILD.test(segments[literal])) literal++;
  const rest = segments.slice(literal);
  return {
    base: segments.slice(0, literal).join("/"),
    maxDepth: rest.some((segment) => segment.includes("**")) ? undefined : segments.length,
    test: segmentMatcher(segments),
    name: /^[^?[\]{}()!+@\\]*$/.test(segments.at(-1)!) && !segments.at(-1)!.includes("**")
      ? segments.at(-1)
      : undefined,
  };
}

/**
 * Matches path segments one by one: each segment's own regular expression, and `**` as any number
 * of segments. `globToRegExp` of a whole pattern with `**` nests quantifiers, which backtracks
 * badly on deep paths; a segment never contains `/`, so its expression stays simple.
 */
function segmentMatcher(segments: readonly string[]): (path: string) => boolean {
  const parts = segments.map((segment) =>
    segment === "**" ? undefined : globToRegExp(segment, { extended: true, globstar: true })
  );
  const match = (names: readonly string[], at: number, part: number): boolean => {
    if (part === parts.length) return at === names.length;
    const regex = parts[part];
    if (regex === undefined) {
      for (let skip = at; skip <= names.length; skip++) {
        if (match(names, skip, part + 1)) return true;
      }
      return false;
    }
    return at < names.length && regex.test(names[at]) && match(names, at + 1, part + 1);
  };
  return (path) => match(path.split("/"), 0, 0);
}

/**
 * Compiles the file filter of `grep`: a glob without a slash matches the file's name at any depth
 * (`*.ts`), one with a slash matches the path relative to the search folder (`src/**\/*.ts`).
 *
 * @param pattern The glob.
 * @returns The test of a path relative to the search folder.
 */
export function compileFileFilter(pattern: string): (path: string) => boolean {
  const cleaned = checkGlob(pattern, "glob");
  const regex = globToRegExp(cleaned, { extended: true, globstar: true });
  if (cleaned.includes("/")) return (path) => regex.test(path);
  return (path) => regex.test(path.slice(path.lastIndexOf("/") + 1));
}

function checkGlob(pattern: string, field: string): string {
  if (pattern.length === 0) {
    throw new ToolError(
      "invalid_arguments",
      `"${field}" must be a non-empty glob such as "**/*.ts"`,
    );
  }
  if (pattern.includes("\0")) {
    throw new ToolError("invalid_arguments", `"${field}" must not contain NUL bytes`);
  }
  if (pattern.startsWith("/") || pattern.startsWith("~")) {
    throw new ToolError(
      "invalid_arguments",
      `"${field}" must be relative to the search folder, received ${
        JSON.stringify(pattern.slice(0, 200))
      }: give the folder as "path" and a relative pattern such as "**/*.ts"`,
    );
  }
  const cleaned = pattern.replace(/^(\.\/)+/, "");
  if (cleaned.split("/").includes("..")) {
    throw new ToolError(
      "invalid_arguments",
      `"${field}" must not contain "..": give the folder to search as "path" instead`,
    );
  }
  return cleaned;
}

import { ToolError } from "../../../core/tool_error.ts";

/** One matching line. */
export interface LineMatch {
  /** The line number, 1-based. */
  line: number;
  /** The line, without its line ending; a long one cut around the match, with a marker. */
  text: string;
}

/** A pattern compiled for searching: a scan over a whole text, and a test of one line. */
export interface CompiledPattern {
  /** Finds candidate matches in the whole text (flags `g` and `m`). */
  readonly scan: RegExp;
  /** Confirms a candidate on its line alone. */
  readonly line: RegExp;
  /**
   * The UTF-8 bytes every match contains, when the pattern is a plain literal matched with case:
   * a file without them is passed over without decoding it.
   */
  readonly literal?: Uint8Array;
}

const PLAIN = /^(?:[^\\^$.|?*+()[\]{}]|\\[\\^$.|?*+()[\]{}/-])+$/;

/** The most characters of a line in a result. */
export const MAX_LINE_CHARS = 500;

/**
 * Compiles a JavaScript regular expression for `grep`: with the `u` flag when it is valid
 * Unicode syntax, else without (so `\-` and other lenient escapes still work). Throws a
 * `ToolError` (`invalid_arguments`) naming the problem when it is not a valid expression.
 *
 * @param pattern The regular expression's source.
 * @param ignoreCase Whether case is ignored.
 * @returns The compiled pattern.
 */
export function compilePattern(pattern: string, ignoreCase: boolean): CompiledPattern {
  const flags = ignoreCase ? "i" : "";
  const literal = !ignoreCase && PLAIN.test(pattern)
    ? new TextEncoder().encode(pattern.replace(/\\(.)/g, "$1"))
    : undefined;
  try {
    return {
      scan: new RegExp(pattern, `gmu${flags}`),
      line: new RegExp(pattern, `u${flags}`),
      literal,
    };
  } catch {
    // Not valid with the `u` flag: try the lenient syntax.
  }
  try {
    return { scan: new RegExp(pattern, `gm${flags}`), line: new RegExp(pattern, flags) };
  } catch (error) {
    const reason = error instanceof Error
      ? error.message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, "")
      : String(error);
    throw new ToolError(
      "invalid_arguments",
      `"pattern" is not a valid regular expression: ${reason} in ${
        JSON.stringify(pattern.slice(0, 200))
      }; escape special characters such as ( [ { . * + ? with a backslash to match them literally`,
    );
  }
}

/**
 * Finds the lines of a text that match, at most `limit` of them, each line once. A line is
 * matched on its own (a match never spans lines); `^` and `$` are the line's start and end.
 *
 * @param text The file's text.
 * @param pattern The compiled pattern.
 * @param limit The most matches to return.
 * @returns The matching lines, in order.
 */
export function searchLines(text: string, pattern: CompiledPattern, limit: number): LineMatch[] {
  const matches: LineMatch[] = [];
  const { scan, line } = pattern;
  scan.lastIndex = 0;
  let lineNumber = 1;
  let counted = 0; // the position up to which newlines were counted
  while (matches.length < limit && scan.lastIndex <= text.length) {
    const found = scan.exec(text);
    if (found === null) break;
    const start = found.index === 0 ? 0 : text.lastIndexOf("\n", found.index - 1) + 1;
    let end = text.indexOf("\n", found.index);
    if (end < 0) end = text.length;
    for (
      let at = text.indexOf("\n", counted);
      at >= 0 && at < start;
      at = text.indexOf("\n", at + 1)
    ) {
      lineNumber++;
      counted = at + 1;
    }
    counted = Math.max(counted, start);
    const lineText = text.slice(start, end > start && text[end - 1] === "\r" ? end - 1 : end);
    const onLine = line.exec(lineText);
    if (onLine !== null) {
      matches.push({ line: lineNumber, text: cutLine(lineText, onLine.index) });
    }
    scan.lastIndex = end + 1;
  }
  return matches;
}

/**
 * Cuts a line longer than {@linkcode MAX_LINE_CHARS} around a position, marking what was cut.
 *
 * @param text The line.
 * @param at The position to keep (the match's start).
 * @returns The line, or its cut.
 */
export function cutLine(text: string, at: number): string {
  if (text.length <= MAX_LINE_CHARS) return text;
  const from = Math.max(0, Math.min(at - 100, text.length - MAX_LINE_CHARS));
  const to = from + MAX_LINE_CHARS;
  return `${from > 0 ? "…" : ""}${text.slice(from, to)}${to < text.length ? "…" : ""}` +
    ` [line cut: ${text.length} characters]`;
}

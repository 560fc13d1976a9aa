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

/**
 * Whether bytes contain a byte sequence. It looks for the sequence's rarest byte natively (by a
 * rough frequency of bytes in source text: a digit before a capital before a lowercase letter,
 * `x` before `e`), then compares the rest.
 *
 * @param data The bytes searched.
 * @param needle The sequence, non-empty.
 * @returns `true` when found.
 */
export function containsBytes(data: Uint8Array, needle: Uint8Array): boolean {
  let pick = 0;
  for (let i = 1; i < needle.length; i++) if (rank(needle[i]) < rank(needle[pick])) pick = i;
  const rare = needle[pick];
  const last = data.length - needle.length + pick;
  for (let at = data.indexOf(rare, pick); at >= 0 && at <= last; at = data.indexOf(rare, at + 1)) {
    const start = at - pick;
    let i = 0;
    while (i < needle.length && data[start + i] === needle[i]) i++;
    if (i === needle.length) return true;
  }
  return false;
}

/** Letters from the most to the least common in English and code. */
const LETTERS = "etaoinsrhldcumfpgwybvkxjqz";

/** How common a byte is in source text, roughly: lower is rarer. */
function rank(byte: number): number {
  if (byte === 0x20 || byte === 0x0a || byte === 0x5f) return 100; // space, newline, _
  if (byte >= 0x61 && byte <= 0x7a) return 99 - LETTERS.indexOf(String.fromCharCode(byte));
  if (byte >= 0x41 && byte <= 0x5a) return 60 - LETTERS.indexOf(String.fromCharCode(byte + 32));
  if (byte >= 0x30 && byte <= 0x39) return 20; // digits
  if (byte < 0x80 && /[.,;:()="'{}/*-]/.test(String.fromCharCode(byte))) return 50;
  return 10;
}

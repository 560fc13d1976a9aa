import { RE2JS, RE2JSSyntaxException } from "re2js";
import { ToolError } from "../../../core/tool_error.ts";
import type { WorkerExpression } from "./long_line_matcher.ts";

/** One matching line. */
export interface LineMatch {
  /** The line number, 1-based. */
  line: number;
  /** The line, without its line ending; a long one cut around the match, with a marker. */
  text: string;
}

/**
 * A pattern compiled for searching. A model's regular expression runs in RE2 (`re2js`), whose
 * time is linear in the text: no expression can backtrack. A plain literal of at most 64
 * characters (no operator at all, so nothing to backtrack over) runs in JavaScript's engine,
 * which finds it faster.
 */
export interface CompiledPattern {
  /** The RE2 expression (multiline: `^` and `$` are a line's start and end), when not literal. */
  readonly re2?: RE2JS;
  /** The same expression as a worker compiles it (`long_line_matcher.ts`). */
  readonly expression?: WorkerExpression;
  /**
   * The most characters one RE2 call takes: RE2's work is linear in the text times the
   * expression's program, so a larger program gets shorter slices (see `WORK_PER_CALL`).
   */
  readonly sliceChars: number;
  /** The JavaScript expression of a plain literal (flag `g`): its characters, no operator. */
  readonly plain?: RegExp;
  /** The plain literal's length. */
  readonly literalChars: number;
  /**
   * Whether a whole slice of lines can be tested with `re2` at once before its lines are: false
   * when the pattern looks past a line (`\A`, `\z`, or a flag group that turns `m` off).
   */
  readonly bySlice: boolean;
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
 * The most characters of one line a regular expression is matched against (64 Ki): a longer
 * line is matched on its start only. A line longer than one short step takes (twice the
 * expression's slice, see `WORK_PER_CALL`) is matched in a worker thread when the caller gives
 * one (`SearchLinesOptions.longLine`), and on the start that fits a step otherwise. A plain
 * literal searches a line of any length.
 */
export const MAX_MATCHED_LINE_CHARS = 64 * 1024;

/** The longest pattern `grep` compiles (compiling is one step: it must stay short too). */
export const MAX_PATTERN_CHARS = 1000;

// The longest literal JavaScript's engine (and the byte prefilter) search for; a longer one runs
// in RE2, whose search for a literal does not grow with its length.
const MAX_PLAIN_CHARS = 64;
// The largest RE2 program (instructions) a pattern may compile to.
const MAX_PROGRAM = 500;
// Characters times program instructions one RE2 call on the event loop may take. RE2's time is
// linear in both; where every character leads the DFA to a new state (a hostile text for its
// pattern), re2js takes this many steps in a few milliseconds (measured in docs/security.md),
// and common patterns on common text far less.
const WORK_PER_CALL = 1 << 15;
// How many characters of whole lines one call tests at once, at most.
const SLICE_CHARS = 32 * 1024;

/** How the pattern syntax is described to the model (grep's description and schema). */
export const PATTERN_SYNTAX =
  "A regular expression in RE2 syntax (linear time), matched against each line: " +
  "JavaScript-style classes, escapes and groups work (\\d \\w \\s \\b [a-z] (a|b) a{2,3} " +
  "(?<name>x) (?i)); lookahead, lookbehind and backreferences do not";

/**
 * Compiles a model's regular expression for `grep`, in RE2 syntax after `re2js` maps the
 * JavaScript-only escapes (`\u0041`, `\u{1F600}`, `\cA`, `[^]`). Throws a `ToolError`
 * (`invalid_arguments`) that names what is unsupported and what to write instead, or the
 * syntax error.
 *
 * @param pattern The regular expression's source.
 * @param ignoreCase Whether case is ignored.
 * @returns The compiled pattern.
 */
export function compilePattern(pattern: string, ignoreCase: boolean): CompiledPattern {
  if (pattern.length > MAX_PATTERN_CHARS) {
    throw new ToolError(
      "invalid_arguments",
      `"pattern" has ${pattern.length} characters, more than the ${MAX_PATTERN_CHARS} grep takes: ` +
        "search for a shorter, more specific expression (and narrow with path or glob)",
    );
  }
  const text = PLAIN.test(pattern) ? pattern.replace(/\\(.)/g, "$1") : undefined;
  // A literal is searched in time linear in the text times its length: only a short one here.
  if (text !== undefined && text.length <= MAX_PLAIN_CHARS) {
    const escaped = text.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&");
    return {
      plain: new RegExp(escaped, ignoreCase ? "giu" : "gu"),
      bySlice: true,
      sliceChars: SLICE_CHARS,
      literalChars: text.length,
      literal: ignoreCase ? undefined : new TextEncoder().encode(text),
    };
  }
  refuseUnsupported(pattern);
  let re2: RE2JS;
  const flags = RE2JS.MULTILINE | (ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
  let translated = "";
  try {
    translated = RE2JS.translateRegExp(pattern);
    re2 = RE2JS.compile(translated, flags);
  } catch (error) {
    // The description alone: the expression it quotes carries the flags added above.
    const reason = error instanceof RE2JSSyntaxException ? error.error : String(error);
    if (/nested repetition/.test(reason)) {
      invalid(pattern, "possessive quantifiers (a++, a*+) are not supported", "write a+ or a*");
    }
    throw new ToolError(
      "invalid_arguments",
      `"pattern" is not a valid regular expression: ${reason} in ${
        JSON.stringify(pattern.slice(0, 200))
      }; escape special characters such as ( [ { . * + ? with a backslash to match them literally`,
    );
  }
  const program = re2.matcher("").programSize();
  if (program > MAX_PROGRAM) {
    invalid(
      pattern,
      `it compiles to ${program} instructions, more than ${MAX_PROGRAM}`,
      "shorten it (counted repeats such as \\w{500} and Unicode classes grow it)",
    );
  }
  return {
    re2,
    literalChars: 0,
    bySlice: !/\\[Az]|\(\?[a-zA-Z]*-/.test(pattern.replace(/\\\\/g, "")),
    sliceChars: Math.max(64, Math.min(SLICE_CHARS, Math.floor(WORK_PER_CALL / program))),
    expression: { source: translated, flags },
  };
}

/** The constructs RE2 has not, each refused with what to write instead. */
function refuseUnsupported(pattern: string): void {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    const next = pattern[i + 1] ?? "";
    if (char === "\\") {
      if (!inClass && /[1-9]/.test(next) || next === "k" && pattern[i + 2] === "<") {
        invalid(
          pattern,
          "backreferences (\\1, \\k<name>) are not supported",
          "write the repeated text out, or search for the first part and read the lines found",
        );
      }
      i++;
    } else if (inClass) {
      if (char === "]") inClass = false;
    } else if (char === "[") {
      inClass = true;
      if (next === "]" || next === "^" && pattern[i + 2] === "]") i += next === "]" ? 1 : 2;
    } else if (char === "(" && next === "?") {
      const kind = pattern.slice(i + 2, i + 4);
      if (kind[0] === "=" || kind[0] === "!") {
        invalid(
          pattern,
          "lookahead ((?=…), (?!…)) is not supported",
          "match the text itself (a line matches if the expression occurs anywhere in it), " +
            "or search twice and compare",
        );
      }
      if (kind === "<=" || kind === "<!") {
        invalid(
          pattern,
          "lookbehind ((?<=…), (?<!…)) is not supported",
          "match the preceding text too (a line matches if the expression occurs anywhere in it)",
        );
      }
      if (kind[0] === ">") {
        invalid(pattern, "atomic groups ((?>…)) are not supported", "write a plain group (?:…)");
      }
    }
  }
}

function invalid(pattern: string, what: string, instead: string): never {
  throw new ToolError(
    "invalid_arguments",
    `"pattern" cannot run in grep: ${what}, in ${
      JSON.stringify(pattern.slice(0, 200))
    }. grep matches in linear time (RE2 syntax): ${instead}`,
  );
}

/** What {@linkcode searchLines} needs besides the text and the pattern. */
export interface SearchLinesOptions {
  /** The most matches to return. */
  readonly limit: number;
  /** Called between slices of work: lets the event loop run, and throws past the deadline. */
  readonly pause?: () => Promise<void>;
  /**
   * Matches a line longer than one step may take off the event loop (`LongLineMatcher`): the
   * position to keep, or `undefined`. Without it such a line is matched on its start.
   */
  readonly longLine?: (line: string) => Promise<number | undefined>;
}

/**
 * Finds the lines of a text that match, at most `limit` of them, each line once. A line is
 * matched on its own (a match never spans lines); `^` and `$` are the line's start and end. The
 * text is worked through in slices of whole lines, with `pause` between them, so that no single
 * step holds the event loop long.
 *
 * @param pattern The compiled pattern.
 * @param options The limit and the pause.
 * @returns The matching lines, in order.
 */
export async function searchLines(
  text: string,
  pattern: CompiledPattern,
  options: SearchLinesOptions,
): Promise<LineMatch[]> {
  const matches: LineMatch[] = [];
  const { limit, pause, longLine } = options;
  // A carriage return before a newline ends the line, not the match: tested line by line.
  const bySlice = pattern.bySlice && !text.includes("\r");
  // The last line ends here: a final newline starts no line of its own.
  const last = text.endsWith("\n") ? text.length - 1 : text.length;
  let lineNumber = 1;
  let counted = 0; // the position up to which newlines were counted
  const countTo = (position: number) => {
    for (
      let at = text.indexOf("\n", counted);
      at >= 0 && at < position;
      at = text.indexOf("\n", at + 1)
    ) {
      lineNumber++;
    }
    counted = Math.max(counted, position);
  };
  for (let start = 0; matches.length < limit;) {
    // A slice of whole lines (at least one) from `start` to `end` (a newline, or `last`).
    const size = pattern.sliceChars;
    let end = start + size >= last ? last : text.lastIndexOf("\n", start + size);
    if (end < start) {
      end = text.indexOf("\n", start);
      if (end < 0 || end > last) end = last;
    }
    if (pattern.plain !== undefined) {
      await scanSlice(text, start, end, pattern, {
        onLine: (from, line, at) => {
          countTo(from);
          matches.push({ line: lineNumber, text: cutLine(line, at) });
          return matches.length >= limit;
        },
        pause,
      });
    } else if (
      !bySlice ||
      // A slice that is one line longer than a step: the line is matched (in the worker).
      (end - start > 2 * size && longLine !== undefined) ||
      pattern.re2!.test(text.slice(start, Math.min(end, start + 2 * size)))
    ) {
      for (let from = start;;) {
        let to = text.indexOf("\n", from);
        if (to < 0 || to > end) to = end;
        const line = text.slice(from, to > from && text[to - 1] === "\r" ? to - 1 : to);
        const at = await matchLine(line, pattern, { pause, longLine });
        if (at !== undefined) {
          countTo(from);
          matches.push({ line: lineNumber, text: cutLine(line, at) });
        }
        if (to >= end || matches.length >= limit) break;
        from = to + 1;
      }
    }
    if (end >= last) break;
    countTo(end);
    start = end + 1;
    await pause?.();
  }
  return matches;
}

/**
 * Scans a slice of whole lines for a plain literal, a window at a time (JavaScript's engine takes
 * up to the window times the literal's length: a text built against a long literal must not make
 * one step long), each window reaching into the next by twice the literal's length so that no
 * match is lost. A candidate counts when it lies within its line; each matching line goes to
 * `onLine` (its start, its text without the line ending, the match's position in it) until that
 * returns `true`.
 */
async function scanSlice(
  text: string,
  start: number,
  end: number,
  pattern: CompiledPattern,
  options: {
    onLine: (from: number, line: string, at: number) => boolean;
    pause: (() => Promise<void>) | undefined;
  },
): Promise<void> {
  const plain = pattern.plain!;
  const overlap = 2 * pattern.literalChars;
  const window = Math.max(4096, Math.min(1 << 18, Math.floor((1 << 20) / pattern.literalChars)));
  let next = start; // where lines not yet reported start
  for (let at = start; at < end; at += window) {
    if (at > start) await options.pause?.();
    const stop = Math.min(end, at + window + overlap);
    const part = text.slice(at, stop);
    plain.lastIndex = Math.max(0, next - at);
    for (let found = plain.exec(part); found !== null; found = plain.exec(part)) {
      const position = at + found.index;
      const from = position === 0 ? 0 : text.lastIndexOf("\n", position - 1) + 1;
      let to = text.indexOf("\n", position);
      if (to < 0 || to > end) to = end;
      const line = text.slice(from, to > from && text[to - 1] === "\r" ? to - 1 : to);
      if (
        position + found[0].length <= from + line.length &&
        options.onLine(from, line, position - from)
      ) {
        return;
      }
      next = to + 1;
      if (next >= stop) break;
      plain.lastIndex = next - at;
    }
  }
}

/**
 * Where a line matches an RE2 expression (the position to keep when it is cut), or `undefined`.
 * The expression is matched against the line's first {@linkcode MAX_MATCHED_LINE_CHARS}; in a
 * line longer than a result shows, the match is located by testing ever shorter starts of the
 * line (a few more linear tests, with pauses), which RE2 does faster than finding the match.
 */
async function matchLine(
  line: string,
  pattern: CompiledPattern,
  options: Pick<SearchLinesOptions, "pause" | "longLine">,
): Promise<number | undefined> {
  const { pause, longLine } = options;
  const re2 = pattern.re2!;
  // At most twice a slice on the event loop; a longer line in the worker.
  const step = 2 * pattern.sliceChars;
  if (line.length > step && longLine !== undefined) {
    return longLine(
      line.length > MAX_MATCHED_LINE_CHARS ? line.slice(0, MAX_MATCHED_LINE_CHARS) : line,
    );
  }
  const most = Math.min(MAX_MATCHED_LINE_CHARS, step);
  const matched = line.length > most ? line.slice(0, most) : line;
  if (!re2.test(matched)) return undefined;
  if (line.length <= MAX_LINE_CHARS) return 0;
  // The shortest start of the line holding a match, to 64 characters.
  let low = 0;
  let high = matched.length;
  while (high - low > 64) {
    const middle = (low + high) >> 1;
    if (re2.test(matched.slice(0, middle))) high = middle;
    else low = middle;
    await pause?.();
  }
  // The match ends near `high`: keep some of what comes before it.
  return Math.max(0, high - 200);
}

/**
 * Cuts a line longer than {@linkcode MAX_LINE_CHARS} around a position, marking what was cut.
 *
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

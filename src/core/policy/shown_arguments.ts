import { canonicalJson, sha256 } from "../canonical_json.ts";

/** Most characters of `PendingApproval.summary` before it says how much is not shown. */
export const SUMMARY_CHARS = 1_000;

/**
 * Characters a person cannot see, or cannot see for what they are: controls, format characters
 * (bidi embeddings, overrides, isolates and marks, zero-width characters, tags), surrogates,
 * private-use and unassigned code points, line and paragraph separators, spaces other than
 * U+0020, and the blank-looking Hangul fillers and braille blank.
 */
const HIDDEN =
  /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000\u115F\u1160\u3164\uFFA0\u2800]/u;
/** A run of this many equal blank or hidden characters (or more) is shown as its count. */
const RUN = 8;
const NAMED: Record<string, string> = { "\n": "\\n", "\t": "\\t", "\r": "\\r" };

/**
 * Makes text safe to show a person who decides on it: a backslash becomes `\\`, a newline `\n`
 * followed by a real line break, a tab `\t`, a carriage return `\r`, every other hidden
 * character (control, bidi, zero-width, unusual space…) its escape (`\u202E`, `\u{E0041}`), and a
 * run of 8 or more equal blank or hidden characters its count (`\[400 × space]`, `\[12 × \n]`).
 * Nothing is left out; every escape starts with a backslash, which the text itself cannot forge.
 *
 * @param text The text.
 * @param json Whether the text is JSON (its backslashes are escapes already and stay single).
 * @returns The visible text.
 */
export function visibleText(text: string, json = false): string {
  let out = "";
  const chars = Array.from(text);
  for (let i = 0; i < chars.length;) {
    const char = chars[i];
    let end = i + 1;
    const blank = char === " " || char in NAMED || HIDDEN.test(char);
    if (blank) { while (end < chars.length && chars[end] === char) end++; }
    if (blank && end - i >= RUN) {
      out += `\\[${end - i} × ${char === " " ? "space" : escapeOf(char)}]`;
      i = end;
      continue;
    }
    for (; i < end; i++) {
      if (char === "\\") out += json ? "\\" : "\\\\";
      else if (char === "\n") out += "\\n\n";
      else if (char in NAMED || HIDDEN.test(char)) out += escapeOf(char);
      else out += char;
    }
  }
  return out;
}

function escapeOf(char: string): string {
  const named = NAMED[char];
  if (named !== undefined) return named;
  const code = char.codePointAt(0)!;
  const hex = code.toString(16).toUpperCase();
  return code > 0xffff ? `\\u{${hex}}` : `\\u${hex.padStart(4, "0")}`;
}

/**
 * The full arguments of a call as a person is shown them before approving it: one line per
 * argument, `name: value`, a string as its text, anything else as JSON, all through
 * {@linkcode visibleText}. Nothing is cut.
 *
 * @param args The parsed arguments.
 * @returns The text to show.
 */
export function showArguments(args: Record<string, unknown>): string {
  const keys = Object.keys(args);
  if (keys.length === 0) return "(no arguments)";
  return keys.map((key) => {
    const name = /^[\w.$-]+$/.test(key) ? key : `"${visibleText(key)}"`;
    const value = args[key];
    const shown = typeof value === "string"
      ? visibleText(value)
      : visibleText(JSON.stringify(value) ?? "null", true);
    return `${name}: ${shown}`;
  }).join("\n");
}

/**
 * The first {@linkcode SUMMARY_CHARS} characters of what is shown, saying plainly how many more
 * there are (`… (2,431 more characters not shown)`).
 *
 * @param shown The text of {@linkcode showArguments}.
 * @param max Most characters kept.
 * @returns The summary.
 */
export function summarizeShown(shown: string, max: number = SUMMARY_CHARS): string {
  if (shown.length <= max) return shown;
  let cut = max;
  // Never split a surrogate pair (the rest would show as a lone half).
  if (/[\uD800-\uDBFF]/.test(shown[cut - 1])) cut--;
  const rest = shown.length - cut;
  return `${shown.slice(0, cut)}… (${rest.toLocaleString("en-US")} more characters not shown)`;
}

/**
 * The digest an approval is bound to: SHA-256 (WebCrypto) over the tool's name, the text shown
 * and the exact arguments, so an approval of one text never fits other arguments.
 *
 * @param tool The tool's exposed name.
 * @param shown The text of {@linkcode showArguments}.
 * @param args The arguments it shows.
 * @returns `sha256-` and 64 hex digits.
 */
export function shownDigest(
  tool: string,
  shown: string,
  args: Record<string, unknown>,
): Promise<string> {
  return sha256(`toolroute-shown-v1\n${canonicalJson({ tool, shown, arguments: args })}`);
}

/**
 * A private copy of the arguments, when they still show as the approved text (their digest is
 * `digest`); `undefined` when they changed or are not plain JSON.
 *
 * @param tool The tool's exposed name.
 * @param args The arguments as they are now.
 * @param digest The `shownDigest` the approval is bound to.
 * @returns The copy to run, or `undefined`.
 */
export async function argumentsAsShown(
  tool: string,
  args: Record<string, unknown>,
  digest: string,
): Promise<Record<string, unknown> | undefined> {
  let copy: Record<string, unknown>;
  try {
    copy = JSON.parse(JSON.stringify(args));
  } catch {
    return undefined;
  }
  return (await shownDigest(tool, showArguments(copy), copy)) === digest ? copy : undefined;
}

/**
 * Whether an approver's answer is for this approval: it names no digest, or the approval's.
 *
 * @param answer The answer.
 * @param approval The approval's digest.
 * @returns `true` when it fits.
 */
export function answerFits(
  answer: { shownDigest?: string },
  approval: { shownDigest: string },
): boolean {
  return answer.shownDigest === undefined || answer.shownDigest === approval.shownDigest;
}

import { canonicalJson, sha256 } from "../canonical_json.ts";

/** Most characters of `PendingApproval.summary` before it says how much is not shown. */
export const SUMMARY_CHARS = 1_000;

/**
 * Characters a person cannot see, or cannot see for what they are: controls, format characters
 * (bidi embeddings, overrides, isolates and marks, zero-width characters, tags), surrogates,
 * private-use and unassigned code points, line and paragraph separators, spaces other than
 * U+0020, the blank-looking Hangul fillers and braille blank, and every default-ignorable code
 * point (the combining grapheme joiner and variation selectors are invisible marks: `deploy͏.sh`
 * would read as `deploy.sh`).
 */
const HIDDEN = String
  .raw`[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000\u115F\u1160\u3164\uFFA0\u2800]`;
const HIDDEN_ONE = new RegExp(`^${HIDDEN}$`, "u");
const NAMED: Record<string, string> = { "\n": "\\n", "\t": "\\t", "\r": "\\r" };
/** A run of this many equal blank or hidden characters (or more) is shown as its count. */
const RUN = 8;
const PLAIN = 0, HIDE = 1, BACKSLASH = 2, SPACE = 3;
/** Each UTF-16 unit as a string, and as it is shown, made on first use. */
const unitChars: string[] = [];
const unitEscapes: string[] = [];

function shownUnit(char: string): string {
  return char === "\n" ? "\\n\n" : escapeOf(char);
}

/** What each UTF-16 unit is, built on first use (a surrogate pair is looked at as one). */
let kinds: Uint8Array | undefined;

function kindsOf(): Uint8Array {
  if (kinds !== undefined) return kinds;
  kinds = new Uint8Array(0x10000);
  for (let unit = 0; unit < 0x10000; unit++) {
    if (HIDDEN_ONE.test(String.fromCharCode(unit))) kinds[unit] = HIDE;
  }
  kinds[0x5c] = BACKSLASH;
  kinds[0x20] = SPACE;
  return kinds;
}

/**
 * Makes text safe to show a person who decides on it: a backslash becomes `\\`, a newline `\n`
 * followed by a real line break, a tab `\t`, a carriage return `\r`, every other hidden
 * character (control, bidi, zero-width, unusual space…) its escape (`\u202E`, `\u{E0041}`), and a
 * run of 8 or more equal blank or hidden characters its count (`\[400 × space]`, `\[12 × \n]`).
 * Nothing is left out; every escape starts with a backslash, which the text itself cannot forge.
 * One pass with a table lookup per character: a megabyte of arguments takes milliseconds.
 *
 * @param json Whether the text is JSON (its backslashes are escapes already and stay single).
 */
export function visibleText(text: string, json = false): string {
  const table = kindsOf();
  const out: string[] = [];
  let last = 0;
  for (let i = 0; i < text.length;) {
    const unit = text.charCodeAt(i);
    let kind = table[unit];
    let width = 1;
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const low = text.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        width = 2;
        kind = HIDDEN_ONE.test(text.slice(i, i + 2)) ? HIDE : PLAIN;
      }
    }
    if (kind === PLAIN) {
      i += width;
      continue;
    }
    if (kind === BACKSLASH) {
      out.push(text.slice(last, i), json ? "\\" : "\\\\");
      last = ++i;
      continue;
    }
    let end = i + width;
    if (width === 1) { while (text.charCodeAt(end) === unit) end++; }
    else while (text.startsWith(text.slice(i, i + 2), end)) end += 2;
    const count = (end - i) / width;
    const char = width === 1 ? unitChars[unit] ??= String.fromCharCode(unit) : text.slice(i, i + 2);
    if (count >= RUN) {
      out.push(text.slice(last, i), `\\[${count} × ${kind === SPACE ? "space" : escapeOf(char)}]`);
      last = i = end;
      continue;
    }
    if (kind === SPACE) {
      i = end; // a few spaces stay as they are
      continue;
    }
    const one = width === 1 ? unitEscapes[unit] ??= shownUnit(char) : escapeOf(char);
    out.push(text.slice(last, i), count === 1 ? one : one.repeat(count));
    last = i = end;
  }
  if (last === 0) return text;
  out.push(text.slice(last));
  return out.join("");
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
 * @param view The text of {@linkcode showArguments} and the arguments it shows.
 * @returns `sha256-` and 64 hex digits.
 */
export function shownDigest(
  tool: string,
  view: { shown: string; args: Record<string, unknown> },
): Promise<string> {
  const { shown, args } = view;
  return sha256(`toolroute-shown-v1\n${canonicalJson({ tool, shown, arguments: args })}`);
}

/**
 * A private copy of the arguments, when they still show as the approved text (their digest is
 * `digest`); `undefined` when they changed or are not plain JSON.
 *
 * @param approved The tool's exposed name and the `shownDigest` the approval is bound to.
 * @returns The copy to run, or `undefined`.
 */
export async function argumentsAsShown(
  args: Record<string, unknown>,
  approved: { tool: string; digest: string },
): Promise<Record<string, unknown> | undefined> {
  const { tool, digest } = approved;
  let copy: Record<string, unknown>;
  try {
    copy = JSON.parse(JSON.stringify(args));
  } catch {
    return undefined;
  }
  return (await shownDigest(tool, { shown: showArguments(copy), args: copy })) === digest
    ? copy
    : undefined;
}

/**
 * Whether an approver's answer is for this approval: it names no digest, or the approval's.
 *
 * @param approval The approval's digest.
 * @returns `true` when it fits.
 */
export function answerFits(
  answer: { shownDigest?: string },
  approval: { shownDigest: string },
): boolean {
  return answer.shownDigest === undefined || answer.shownDigest === approval.shownDigest;
}

import { ToolError } from "../../../core/tool_error.ts";
import type { EditResult } from "./file_edit.ts";
import { joinText, splitText } from "./text_lines.ts";

/** One `@@` hunk of a Codex patch. */
export interface CodexChunk {
  /** The text after `@@`: a line to find before the hunk, such as a function signature. */
  header?: string;
  /** The lines the hunk expects (context and removed). */
  old: string[];
  /** The lines that replace them (context and added). */
  new: string[];
  /** The number of `+` lines. */
  added: number;
  /** The number of `-` lines. */
  removed: number;
  /** Whether the hunk is anchored at the end of the file (`*** End of File`). */
  eof: boolean;
  /** The hunk's line in the patch, for messages. */
  line: number;
}

type Compare = (a: string, b: string) => boolean;

/** From strict to lenient: exact, trailing whitespace, surrounding whitespace, punctuation. */
const PASSES: readonly Compare[] = [
  (a, b) => a === b,
  (a, b) => a.trimEnd() === b.trimEnd(),
  (a, b) => a.trim() === b.trim(),
  (a, b) => plain(a) === plain(b),
];

/**
 * Applies Codex hunks to a file's text: each hunk's lines are found at or after the previous
 * hunk (strictly first, then ignoring whitespace), a hunk without `-` or context lines inserts
 * after its `@@` line or at the end. Keeps the file's line endings and trailing newline. Throws
 * a `ToolError` naming the file and the first line that did not match.
 *
 * @param text The current text.
 * @param chunks The hunks, in file order.
 * @param options The `path` as the patch names it.
 * @returns The new text and the line counts.
 */
export function applyCodexChunks(
  text: string,
  chunks: readonly CodexChunk[],
  options: { path: string },
): EditResult {
  const { path } = options;
  const file = splitText(text);
  const lines = file.lines;
  const replacements: [at: number, remove: number, insert: string[]][] = [];
  let index = 0;
  let linesAdded = 0;
  let linesRemoved = 0;
  chunks.forEach((chunk, n) => {
    if (chunk.header !== undefined) {
      const at = seek(lines, [chunk.header], index, false);
      if (at === -1) {
        throw mismatch(path, n, `the "@@" line ${quoteLine(chunk.header)} was not found`);
      }
      index = at + 1;
    }
    linesAdded += chunk.added;
    linesRemoved += chunk.removed;
    if (chunk.old.length === 0) {
      const at = chunk.header !== undefined && !chunk.eof ? index : lines.length;
      replacements.push([at, 0, chunk.new]);
      return;
    }
    let old = chunk.old;
    let replacement = chunk.new;
    let at = seek(lines, old, index, chunk.eof);
    if (at === -1 && old.at(-1) === "") {
      // A trailing empty context line often stands for the end of the file.
      old = old.slice(0, -1);
      replacement = replacement.at(-1) === "" ? replacement.slice(0, -1) : replacement;
      at = seek(lines, old, index, chunk.eof);
    }
    if (at === -1) {
      throw mismatch(
        path,
        n,
        `the line ${quoteLine(firstMismatch(lines, chunk.old, index))} was not found`,
      );
    }
    replacements.push([at, old.length, replacement]);
    index = at + old.length;
  });
  for (let i = replacements.length - 1; i >= 0; i--) {
    const [at, remove, insert] = replacements[i];
    lines.splice(at, remove, ...insert);
  }
  // An empty file has no layout of its own: lines added to it end with a newline.
  const layout = text.length === 0 ? { ...file, trailingNewline: true } : file;
  return { text: joinText(lines, layout), linesAdded, linesRemoved };
}

function seek(
  lines: readonly string[],
  pattern: readonly string[],
  start: number,
  eof: boolean,
): number {
  const lastStart = lines.length - pattern.length;
  if (lastStart < 0) return -1;
  for (const same of PASSES) {
    if (eof && lastStart >= start && matches(lines, pattern, lastStart, same)) return lastStart;
    for (let at = start; at <= lastStart; at++) {
      if (matches(lines, pattern, at, same)) return at;
    }
  }
  return -1;
}

function matches(
  lines: readonly string[],
  pattern: readonly string[],
  at: number,
  same: Compare,
): boolean {
  for (let i = 0; i < pattern.length; i++) {
    if (!same(lines[at + i], pattern[i])) return false;
  }
  return true;
}

/** The first line of the hunk that does not match where the hunk matches longest. */
function firstMismatch(
  lines: readonly string[],
  pattern: readonly string[],
  start: number,
): string {
  let best = 0;
  for (let at = start; at < lines.length && best < pattern.length; at++) {
    let length = 0;
    while (
      length < pattern.length && at + length < lines.length &&
      PASSES[2](lines[at + length], pattern[length])
    ) {
      length++;
    }
    if (length > best) best = length;
  }
  return pattern[Math.min(best, pattern.length - 1)];
}

function plain(line: string): string {
  return line.trim()
    .replace(/[\u2010-\u2015\u2212]/g, "-")
    .replace(/[\u2018\u2019\u201A\u201B]/g, "'")
    .replace(/[\u201C\u201D\u201E\u201F]/g, '"')
    .replace(/[\u00A0\u2002-\u200A\u202F\u205F\u3000]/g, " ");
}

function quoteLine(line: string): string {
  return JSON.stringify(line.length > 120 ? `${line.slice(0, 120)}…` : line);
}

function mismatch(path: string, chunk: number, problem: string): ToolError {
  return new ToolError(
    "tool_error",
    `Patch failed on ${JSON.stringify(path)}, hunk ${
      chunk + 1
    }: ${problem}. Nothing was changed; read the file again and copy the context lines exactly`,
  );
}

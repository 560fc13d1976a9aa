/** A text file as lines, with what is needed to write it back the same way. */
export interface TextLines {
  /** The lines, without their line endings. */
  lines: string[];
  /** The line ending to write: `"\r\n"` when most lines end so, else `"\n"`. */
  eol: "\n" | "\r\n";
  /** Whether the text ends with a line ending. */
  trailingNewline: boolean;
}

/**
 * Splits text into lines, remembering its line ending and whether it ends with one.
 *
 * @returns The lines and the layout.
 */
export function splitText(text: string): TextLines {
  if (text.length === 0) return { lines: [], eol: "\n", trailingNewline: false };
  const newlines = countOf(text, "\n");
  const crlf = countOf(text, "\r\n");
  const eol = crlf > 0 && crlf * 2 >= newlines ? "\r\n" : "\n";
  const trailingNewline = text.endsWith("\n");
  const body = trailingNewline ? text.slice(0, text.endsWith("\r\n") ? -2 : -1) : text;
  return { lines: body.split(/\r?\n/), eol, trailingNewline };
}

/**
 * Joins lines back into text with the given layout. An empty list gives empty text.
 *
 * @param layout The line ending and trailing newline to keep.
 */
export function joinText(lines: readonly string[], layout: Omit<TextLines, "lines">): string {
  if (lines.length === 0) return "";
  return lines.join(layout.eol) + (layout.trailingNewline ? layout.eol : "");
}

/** How many times `needle` occurs in `text`, not overlapping. */
export function countOf(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) {
    count++;
  }
  return count;
}

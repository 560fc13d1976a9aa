import { parse } from "@std/jsonc";

/**
 * Parses JSON with comments (`//` and `/* *\/`) and trailing commas, as editors allow in config
 * files (std's JSONC parser).
 *
 * Throws a `SyntaxError` that says what is wrong and where, by line and column: std's own message
 * gives a character offset, which a person editing the file cannot find.
 */
export function parseJsonc(text: string): unknown {
  try {
    return parse(text);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    // std quotes every token, string tokens keep their own quotes: `""key""` reads as `"key"`.
    const message = error.message.replace(/^Cannot parse JSONC: /, "").replace(/"(".*")"/, "$1");
    throw new SyntaxError(located(text, message));
  }
}

function located(text: string, message: string): string {
  const at = message.match(/ in JSONC at position (\d+)$/);
  if (at === null) {
    return `${message} at line ${text.split("\n").length}: close every {, [, string and /* comment`;
  }
  const lines = text.slice(0, Number(at[1])).split("\n");
  return `${message.slice(0, at.index)} at line ${lines.length}, column ${
    lines.at(-1)!.length + 1
  }`;
}

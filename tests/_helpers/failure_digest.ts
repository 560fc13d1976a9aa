/**
 * The failed tests of a run, short, for the last lines a run prints. CI keeps only a run's last
 * lines: a failure's report, written minutes before the parts' results and the publish dry run,
 * was cut away, and a failed gate named its part but not its test.
 *
 * @module
 */

import { stripAnsiCode } from "@std/fmt/colors";

/** The lines kept of one failed test's error, after its `name => place` line. */
const ERROR_LINES = 6;
/** The lines a digest holds at most. */
const DIGEST_LINES = 60;

/**
 * Reads every `ERRORS` section `deno test` wrote in `output` and keeps, per failed test (or
 * module), its `name => place` line and the first lines of its error.
 *
 * @param output What the runs wrote, colours and all.
 * @returns The digest's lines, at most {@linkcode DIGEST_LINES}, the last saying how many more
 *   there were; when no test failed (a check, the formatter or the linter did), the last lines
 *   written before Deno's backtrace.
 */
export function failureDigest(output: string): string[] {
  const lines = stripAnsiCode(output).split("\n");
  const digest: string[] = [];
  let inErrors = false;
  let kept = 0;
  for (const line of lines) {
    const header = line.trim();
    if (header === "ERRORS") {
      inErrors = true;
      kept = ERROR_LINES + 1;
      continue;
    }
    if (!inErrors) continue;
    if (header === "FAILURES") {
      inErrors = false;
      continue;
    }
    if (line.includes(" => ./") || line.includes(" => file:")) {
      digest.push(line);
      kept = 0;
    } else if (kept < ERROR_LINES && header !== "") {
      digest.push(`    ${line}`);
      kept++;
    }
  }
  if (digest.length === 0) return lastLines(lines);
  if (digest.length <= DIGEST_LINES) return digest;
  return [
    ...digest.slice(0, DIGEST_LINES - 1),
    `    … and ${digest.length - DIGEST_LINES + 1} more lines`,
  ];
}

/** The failed tests a run's very last lines name at most. */
const LAST_NAMED = 4;
/** The characters of one such line at most. */
const NAMED_WIDTH = 150;

/**
 * The failed tests of some digests, one short line each, place first: the very last lines of a
 * run. CI kept only the last seven lines of a gate: the digest before them was cut in the middle
 * of a failure's error, which named no test.
 *
 * @param digests Digests made by {@linkcode failureDigest}.
 * @returns At most {@linkcode LAST_NAMED} lines and one saying how many more failed.
 */
export function failedTestsInShort(digests: readonly string[][]): string[] {
  const named = digests.flat().flatMap((line) => {
    const at = line.lastIndexOf(" => ");
    if (at < 0 || line.startsWith(" ")) return [];
    const place = line.slice(at + 4).trim().replace(/^\.\//, "");
    const text = `FAILED ${place} ${line.slice(0, at).trim()}`;
    return [text.length <= NAMED_WIDTH ? text : `${text.slice(0, NAMED_WIDTH - 1)}…`];
  });
  if (named.length <= LAST_NAMED) return named;
  return [
    ...named.slice(0, LAST_NAMED - 1),
    `FAILED … and ${named.length - LAST_NAMED + 1} more tests, named above`,
  ];
}

/** The lines kept of a failure that no test reported. */
const LAST_LINES = 12;

/** The last non-empty lines before the first `Stack backtrace:` (which names no place of ours). */
function lastLines(lines: string[]): string[] {
  const end = lines.findIndex((line) => line.startsWith("Stack backtrace:"));
  const kept = (end < 0 ? lines : lines.slice(0, end)).filter((line) => line.trim() !== "");
  return kept.slice(-LAST_LINES);
}

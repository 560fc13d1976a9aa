/**
 * The last step of a test run whose modules tallied their skips (`deno_tests.ts` calls
 * {@linkcode takeBwrapNotice} itself): prints the run's one bubblewrap notice line when its test
 * modules skipped tests for want of bwrap (see `bwrap.ts`), and removes the tally. Prints
 * nothing when nothing was skipped.
 *
 * Run: `deno run --no-prompt --allow-read --allow-write --allow-env tests/_helpers/bwrap_notice.ts`
 *
 * @module
 */

import { bwrapNotice, tallyPath } from "./bwrap.ts";

/**
 * Reads and removes a run's tally.
 *
 * @param path The tally file.
 * @returns The notice line, or `undefined` when no test was skipped.
 */
export function takeBwrapNotice(path: string): string | undefined {
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
  Deno.removeSync(path);
  const count = text.split("\n").reduce((sum, line) => sum + (Number(line) || 0), 0);
  return count > 0 ? bwrapNotice(count) : undefined;
}

if (import.meta.main) {
  const line = takeBwrapNotice(tallyPath());
  if (line !== undefined) console.error(line);
}

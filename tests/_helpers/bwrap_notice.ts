/**
 * The one bubblewrap notice of a test run: the runner at the top (`run_parts.ts` under
 * `deno task test`, or `deno_tests.ts` run alone) hands one tally file to every `deno test` it
 * starts ({@linkcode runTally}), their modules add their skips to it (see `bwrap.ts`), and the
 * runner prints the line at the end ({@linkcode takeBwrapNotice}). A runner started by another
 * runner adds to the outer tally and prints nothing, so the whole run prints one line.
 *
 * @module
 */

import { bwrapNotice, TALLY_VARIABLE, tallyPath } from "./bwrap.ts";

/** A run's tally file, and whether this process owns it (and so prints its notice). */
export interface RunTally {
  /** The file the modules add their skips to: the value of `TOOLROUTE_BWRAP_TALLY` for them. */
  path: string;
  /** `false` when a runner above this process handed the tally down. */
  owned: boolean;
}

/**
 * The tally of the run this process belongs to: the one a runner above it handed down, or a new
 * one named after this process.
 *
 * @returns The tally.
 */
export function runTally(): RunTally {
  const inherited = Deno.env.get(TALLY_VARIABLE);
  return inherited ? { path: inherited, owned: false } : { path: tallyPath(Deno.pid), owned: true };
}

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

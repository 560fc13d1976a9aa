/**
 * Runs each named `deno task`, every one of them even after a failure, then names each part's
 * result and fails at the end if any part failed. `deno task a && deno task b` stops at the first
 * red part, so a failure in the core tests hid whether the interop and edge tests passed.
 *
 * The parts run in turn; with `--together` they run at the same time (they are separate
 * processes: none changes another's environment or working directory). Then the first part writes
 * as it goes and the others' output is collected and written after it, part by part.
 *
 * The parts' test modules add their bubblewrap skips to one tally (`bwrap_notice.ts`): the run
 * prints one notice line for all its parts, after their results. Last come the failed tests of
 * each failed part, short (`failure_digest.ts`), and last of all one line per failed test: CI keeps
 * a run's last lines.
 *
 * Usage: `deno run --allow-run --allow-read --allow-write --allow-env tests/_helpers/run_parts.ts
 * [--together] test:core test:deno`
 *
 * @module
 */

import { TALLY_VARIABLE } from "./bwrap.ts";
import { runTally, takeBwrapNotice } from "./bwrap_notice.ts";
import { failedTestsInShort, failureDigest } from "./failure_digest.ts";
import { type ChildResult, runChild, writeAll } from "./run_child.ts";

const together = Deno.args[0] === "--together";
const parts = together ? Deno.args.slice(1) : Deno.args;
if (parts.length === 0) {
  console.error("run_parts: name at least one deno task to run, e.g. test:core");
  Deno.exit(2);
}

const tally = runTally();
const env = { [TALLY_VARIABLE]: tally.path };

async function run(part: string, collect: boolean): Promise<ChildResult & { seconds: number }> {
  const started = performance.now();
  const result = await runChild(["task", part], { env, collect });
  return { ...result, seconds: (performance.now() - started) / 1000 };
}

const results: (ChildResult & { seconds: number })[] = [];
if (together) {
  results.push(...await Promise.all(parts.map((part, i) => run(part, i > 0))));
  for (const [i, { output, written }] of results.entries()) {
    if (written) continue;
    console.log(`\n── ${parts[i]} ──`);
    await writeAll(Deno.stdout, output);
  }
} else {
  for (const part of parts) results.push(await run(part, false));
}

console.log("\nparts:");
for (const [i, { code, seconds }] of results.entries()) {
  console.log(`  ${code === 0 ? "ok    " : "FAILED"} ${parts[i]} (${seconds.toFixed(0)} s)`);
}
const notice = tally.owned ? takeBwrapNotice(tally.path) : undefined;
if (notice !== undefined) console.error(notice);
const failed = parts.filter((_, i) => results[i].code !== 0);
const decoder = new TextDecoder();
const digests: string[][] = [];
for (const [i, { code, output }] of results.entries()) {
  if (code === 0) continue;
  const digest = failureDigest(decoder.decode(output));
  digests.push(digest);
  console.log(`\nfailed in ${parts[i]}:`);
  for (const line of digest) console.log(`  ${line}`);
}
if (failed.length > 0) {
  const short = failedTestsInShort(digests);
  if (short.length > 0) console.log("");
  for (const line of short) console.log(line);
  console.log(`${failed.length} of ${parts.length} parts failed: ${failed.join(", ")}`);
  Deno.exit(1);
}

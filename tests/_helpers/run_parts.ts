/**
 * Runs each named `deno task` in turn, every one of them even after a failure, then names each
 * part's result and fails at the end if any part failed. `deno task a && deno task b` stops at the
 * first red part, so a failure in the core tests hid whether the interop and edge tests passed.
 *
 * The parts' test modules add their bubblewrap skips to one tally (`bwrap_notice.ts`): the run
 * prints one notice line for all its parts, after their results.
 *
 * Usage: `deno run --allow-run --allow-read --allow-write --allow-env tests/_helpers/run_parts.ts
 * test:core test:deno`
 *
 * @module
 */

import { TALLY_VARIABLE } from "./bwrap.ts";
import { runTally, takeBwrapNotice } from "./bwrap_notice.ts";

const parts = Deno.args;
if (parts.length === 0) {
  console.error("run_parts: name at least one deno task to run, e.g. test:core");
  Deno.exit(2);
}

const tally = runTally();
const results: { part: string; code: number; seconds: number }[] = [];
for (const part of parts) {
  const started = performance.now();
  const { code } = await new Deno.Command(Deno.execPath(), {
    args: ["task", part],
    env: { [TALLY_VARIABLE]: tally.path },
    stdin: "inherit",
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  results.push({ part, code, seconds: (performance.now() - started) / 1000 });
}

console.log("\nparts:");
for (const { part, code, seconds } of results) {
  console.log(`  ${code === 0 ? "ok    " : "FAILED"} ${part} (${seconds.toFixed(0)} s)`);
}
const notice = tally.owned ? takeBwrapNotice(tally.path) : undefined;
if (notice !== undefined) console.error(notice);
const failed = results.filter((result) => result.code !== 0);
if (failed.length > 0) {
  console.log(
    `${failed.length} of ${results.length} parts failed: ${failed.map((r) => r.part).join(", ")}`,
  );
  Deno.exit(1);
}

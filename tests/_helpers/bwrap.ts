/**
 * Which tests need bubblewrap, and what happens without it: outside CI such a test is skipped and
 * the run prints one notice; under `CI=true` it runs (and fails), so CI cannot hide a sandbox
 * regression.
 *
 * Use: `Deno.test({ name, ignore: skipWithoutBwrap(), fn })`.
 *
 * `deno test` runs every test module in its own worker, so a count kept here is one module's.
 * Under `deno task test` (`run_parts.ts`, or `deno_tests.ts` run alone, sets
 * `TOOLROUTE_BWRAP_TALLY` to a tally file for every `deno test` run it starts) each module adds
 * its count to that file, and the runner prints the one line at the end (`takeBwrapNotice`). Run
 * directly (`deno test file_test.ts`), each module prints its own line.
 *
 * @module
 */

import { join } from "@std/path";

/** What decides whether a bubblewrap test runs: the seam a test of the detection itself replaces. */
export interface BwrapProbe {
  /** Whether `bwrap` can be started. */
  available(): boolean;
  /** Whether this run is CI (`CI=true`). */
  ci(): boolean;
}

/** The command that installs bubblewrap on Debian and Ubuntu (CI's and this project's machines). */
export const BWRAP_INSTALL = "sudo apt-get install -y bubblewrap";

/**
 * The variable `deno task test` sets, to the path of the run's tally file, so that modules tally
 * their skips there instead of printing.
 */
export const TALLY_VARIABLE = "TOOLROUTE_BWRAP_TALLY";

/**
 * The real probe: `bwrap --version` found on PATH (as the sandbox finds it), and `CI=true`.
 * Without the permission to look (`--allow-run`, `--allow-env`), it cannot tell: the test runs
 * and reports its own permission error rather than a skip that blames bubblewrap.
 */
export const hostProbe: BwrapProbe = {
  available(): boolean {
    try {
      return new Deno.Command("bwrap", { args: ["--version"], stdout: "null", stderr: "null" })
        .outputSync().success;
    } catch (error) {
      return error instanceof Deno.errors.NotCapable;
    }
  },
  ci(): boolean {
    try {
      return Deno.env.get("CI") === "true";
    } catch {
      return false;
    }
  },
};

let hostAvailable: boolean | undefined;
let skipped = 0;

/**
 * Whether a test that needs bubblewrap must be skipped: only outside CI with no bwrap. Skips
 * decided by the real probe are counted for the run's notice.
 *
 * @param probe The detection. Default: the real one.
 * @returns `true` to skip (the value for `Deno.test`'s `ignore`).
 */
export function skipWithoutBwrap(probe: BwrapProbe = hostProbe): boolean {
  const available = probe === hostProbe ? (hostAvailable ??= probe.available()) : probe.available();
  if (available || probe.ci()) return false;
  if (probe === hostProbe && skipped++ === 0) addEventListener("unload", reportSkips);
  return true;
}

/**
 * The one line a run that skipped bubblewrap tests prints.
 *
 * @param count How many tests were skipped.
 * @returns The line.
 */
export function bwrapNotice(count: number): string {
  const [tests, they] = count === 1 ? ["test", "it"] : ["tests", "them"];
  return `notice: ${count} ${tests} skipped because bubblewrap (bwrap) is not installed ` +
    `(the bash sandbox and the sandboxed file tools need it); install it with ` +
    `"${BWRAP_INSTALL}" to run ${they} (under CI=true they fail instead of skipping)`;
}

/**
 * The tally file of one test run, named by the process that runs the parts and prints the notice
 * (it hands the path to every `deno test` below it in {@linkcode TALLY_VARIABLE}).
 *
 * @param runner The runner's process id.
 * @returns The path, in the system's temporary directory.
 */
export function tallyPath(runner: number): string {
  const tmp = Deno.env.get("TMPDIR") || "/tmp";
  return join(tmp, `toolroute_bwrap_skipped_${runner}`);
}

function reportSkips(): void {
  const tally = Deno.env.get(TALLY_VARIABLE);
  if (tally) {
    Deno.writeTextFileSync(tally, `${skipped}\n`, { append: true });
  } else {
    console.error(bwrapNotice(skipped));
  }
}

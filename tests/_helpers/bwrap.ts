/**
 * Which tests need bubblewrap, and what happens without it: outside CI such a test is skipped and the run prints
 * one notice; under `CI=true` it runs (and fails), so CI cannot hide a sandbox regression.
 *
 * Use: `Deno.test({ name, ignore: skipWithoutBwrap(), fn })`.
 */

/** What decides whether a bubblewrap test runs: the seam a test of the detection itself replaces. */
export interface BwrapProbe {
  /** Whether `bwrap` can be started. */
  available(): boolean;
  /** Whether this run is CI (`CI=true`). */
  ci(): boolean;
}

/** The real probe: `bwrap --version` on PATH, and the `CI` variable. */
export const hostProbe: BwrapProbe = {
  available(): boolean {
    try {
      return new Deno.Command("bwrap", { args: ["--version"], stdout: "null", stderr: "null" })
        .outputSync().success;
    } catch {
      return false;
    }
  },
  ci(): boolean {
    return Deno.env.get("CI") === "true";
  },
};

let cached: boolean | undefined;
let skipped = 0;

/** Whether a test that needs bubblewrap must be skipped (true only outside CI with no bwrap); counts the skips. */
export function skipWithoutBwrap(probe: BwrapProbe = hostProbe): boolean {
  const available = probe === hostProbe ? (cached ??= probe.available()) : probe.available();
  if (available || probe.ci()) return false;
  if (probe === hostProbe && skipped++ === 0) addEventListener("unload", printNotice);
  return true;
}

/** The one line printed at the end of a run that skipped bubblewrap tests. */
export function bwrapNotice(count: number): string {
  return `notice: ${count} test(s) skipped: they need bubblewrap (bwrap), which is not installed; ` +
    `install it with "apt-get install -y bubblewrap" (CI=true makes them fail instead)`;
}

function printNotice(): void {
  console.error(bwrapNotice(skipped));
}

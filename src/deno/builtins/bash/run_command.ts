import { type BashInvocation, PIPE_GRACE_MS, spawnOnHost } from "./bash_invocation.ts";
import { BoundedOutput, drainInto, splitBudget } from "../command/bounded_output.ts";
import { reap, trackForExit } from "./process_reaper.ts";
import { abortedError, type CommandResult, type RunLimits } from "../command/command_result.ts";

/**
 * Runs a command to its end with stdin closed, collecting bounded output while it streams.
 *
 * On timeout or abort every process of the command gets SIGKILL, background children included
 * (see `process_reaper.ts`); the run ends within about the pipe grace period after that.
 *
 * @param limits The deadline, output limit and abort signal.
 * @returns Exit code, output and whether it timed out.
 */
export async function runCommand(
  invocation: BashInvocation,
  limits: RunLimits,
): Promise<CommandResult> {
  if (limits.signal.aborted) throw abortedError();
  const child = spawnOnHost(invocation, "null");
  const target = invocation.target(child);
  const untrack = trackForExit(target);
  const stdout = new BoundedOutput(limits.maxChars);
  const stderr = new BoundedOutput(limits.maxChars);
  const stopReading = new AbortController();
  let timedOut = false;
  let killed: Promise<void> | undefined;
  let graceTimer: ReturnType<typeof setTimeout> | undefined;
  const kill = () => {
    if (killed !== undefined) return;
    killed = reap(target);
    graceTimer = setTimeout(() => stopReading.abort(), PIPE_GRACE_MS);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    kill();
  }, limits.timeoutMs);
  limits.signal.addEventListener("abort", kill, { once: true });
  try {
    const [status] = await Promise.all([
      child.status,
      drainInto(child.stdout, stdout, { stop: stopReading.signal }),
      drainInto(child.stderr, stderr, { stop: stopReading.signal }),
    ]);
    await killed;
    if (limits.signal.aborted) throw abortedError();
    const budget = splitBudget(limits.maxChars, {
      stdoutChars: stdout.totalChars,
      stderrChars: stderr.totalChars,
    });
    return {
      exitCode: status.code,
      stdout: stdout.text(budget.stdout),
      stderr: stderr.text(budget.stderr),
      timedOut,
    };
  } finally {
    clearTimeout(timer);
    clearTimeout(graceTimer);
    limits.signal.removeEventListener("abort", kill);
    untrack();
  }
}

import { deadline } from "@std/async";
import { ToolError } from "../../../core/tool_error.ts";
import { bwrapMissing, type SandboxUse } from "../command/bwrap_missing.ts";

/**
 * Recognizes a run in which bubblewrap itself failed (it could not create its namespaces or
 * mounts), so that the call fails with the cause instead of passing bubblewrap's error off as
 * the command's output. The one check for every use of bubblewrap.
 *
 * bubblewrap reports its own failures as exit code 1 with a message starting `bwrap: ` on
 * stderr and nothing on stdout. A command could imitate that, but it would only fail its own
 * call.
 *
 * @param exitCode The exit code.
 * @param stdout The standard output.
 * @param stderr The standard error.
 * @param use What the sandbox was for (the message says what did not run).
 * @returns The error message, or `undefined` when the command ran.
 */
export function sandboxFailure(
  exitCode: number,
  stdout: string,
  stderr: string,
  use: SandboxUse = "bash",
): string | undefined {
  if (exitCode !== 1 || stdout !== "" || !stderr.startsWith("bwrap: ")) return undefined;
  const cause = stderr.split("\n", 1)[0].slice("bwrap: ".length).trim();
  return `The ${use === "bash" ? "bash" : "file"} sandbox could not start: bubblewrap failed ` +
    `(${cause}). ${notRun(use)} and ${use === "bash" ? "is" : "are"} never run unconfined ` +
    "instead; check that unprivileged user namespaces are enabled " +
    "(sysctl kernel.unprivileged_userns_clone=1) or that bwrap is installed setuid";
}

function notRun(use: SandboxUse): string {
  return use === "bash" ? "The command did not run" : "Nothing was read, written or run";
}

/**
 * Spawns, turning a missing program into a clear `tool_error`: for the sandbox, that
 * bubblewrap is not installed and the command did not run (it never runs unconfined instead).
 *
 * @param sandboxed Whether the program is bubblewrap.
 * @param spawn Starts the command.
 * @returns What `spawn` returns.
 */
export async function spawnOrExplain<T>(
  sandboxed: boolean,
  spawn: () => T | Promise<T>,
): Promise<T> {
  try {
    return await spawn();
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    throw new ToolError(
      "tool_error",
      sandboxed ? bwrapMissing("bash") : "Cannot run the command: bash is not installed",
      { cause: error },
    );
  }
}

/**
 * Throws when a sandboxed command's result is bubblewrap's own failure.
 *
 * @param result The exit code and output.
 */
export function assertSandboxRan(
  result: { exitCode: number; stdout: string; stderr: string },
): void {
  const failure = sandboxFailure(result.exitCode, result.stdout, result.stderr);
  if (failure !== undefined) throw new ToolError("tool_error", failure);
}

// A sandbox that cannot start ends at once: wait this long for that before reporting success.
const SANDBOX_START_MS = 150;

/** What {@linkcode assertSandboxStarted} looks at of a background process (`bash/`'s). */
export interface StartedProcess {
  /** Settles when it ends. */
  readonly finished: Promise<unknown>;
  /** Its exit code, `null` while it runs. */
  info(): { readonly exitCode: number | null };
  /** Its logs so far. */
  logs(): { readonly text: string };
}

/**
 * Waits briefly after starting a sandboxed background process and throws when bubblewrap
 * failed to start it.
 *
 * @param process The process just started.
 */
export async function assertSandboxStarted(process: StartedProcess): Promise<void> {
  // Still running after the wait is the good case.
  await deadline(process.finished, SANDBOX_START_MS).catch(() => {});
  const { exitCode } = process.info();
  if (exitCode !== null) assertSandboxRan({ exitCode, stdout: "", stderr: process.logs().text });
}

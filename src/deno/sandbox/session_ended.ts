import { ToolError } from "../../core/tool_error.ts";
import { SandboxMissing } from "./bwrap_missing.ts";

/**
 * The error of a sandbox session that ended (closed, died, hung or broke the protocol).
 *
 * @param why Why, as a clause ("its supervisor exited (code 1)").
 * @returns The error, code `tool_error`.
 */
export function sessionEnded(why: string): ToolError {
  return new ToolError(
    "tool_error",
    `The sandbox session ended: ${why}. Nothing more ran in it; call again to start a fresh sandbox`,
  );
}

/**
 * The error of a session whose bubblewrap exited: bubblewrap's own failure (missing, refused)
 * when its stderr names one, else the supervisor's exit code and last line of stderr.
 *
 * @param code The exit code.
 * @param text The end of the session's stderr.
 * @returns The error, code `tool_error`.
 */
export function sessionExited(code: number, text: string): ToolError {
  // The launch's own line (session_launch.ts, resource_limits.ts) when `bwrap` is not on PATH.
  if (/^bwrap: bubblewrap \(bwrap\) is not installed$/m.test(text)) {
    return new SandboxMissing();
  }
  const failure = sandboxFailure({ exitCode: code, stdout: "", stderr: text });
  if (failure !== undefined) return new ToolError("tool_error", failure);
  // Its last line, at most 200 characters.
  const last = text.trim() === "" ? "" : `: ${text.trim().split("\n").at(-1)!.slice(0, 200)}`;
  return sessionEnded(`its supervisor exited (code ${code}${last})`);
}

/**
 * Recognizes a run in which bubblewrap itself failed (it could not create its namespaces or
 * mounts), so that the session fails with the cause instead of passing bubblewrap's error off as
 * the supervisor's.
 *
 * bubblewrap reports its own failures as exit code 1 with a message starting `bwrap: ` on
 * stderr and nothing on stdout. A command could imitate that, but it would only fail its own
 * call.
 *
 * @param run The exit code, standard output and standard error.
 * @returns The error message, or `undefined` when the command ran.
 */
export function sandboxFailure(
  run: { readonly exitCode: number; readonly stdout: string; readonly stderr: string },
): string | undefined {
  const { exitCode, stdout, stderr } = run;
  if (exitCode !== 1 || stdout !== "" || !stderr.startsWith("bwrap: ")) return undefined;
  const cause = stderr.split("\n", 1)[0].slice("bwrap: ".length).trim();
  return `The sandbox could not start: bubblewrap failed (${cause}). Nothing was read, ` +
    "written or run, and nothing runs unconfined instead; check that unprivileged user " +
    "namespaces are enabled (sysctl kernel.unprivileged_userns_clone=1) or that bwrap is " +
    "installed setuid";
}

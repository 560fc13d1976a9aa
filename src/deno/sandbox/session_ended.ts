import { ToolError } from "../../core/tool_error.ts";
import { SandboxMissing } from "./bwrap_missing.ts";
import { sandboxFailure } from "./sandbox_failure.ts";
import type { SessionStderr } from "./session_stderr.ts";

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
 * @param stderr The session's stderr.
 * @returns The error, code `tool_error`.
 */
export function sessionExited(code: number, stderr: SessionStderr): ToolError {
  const text = stderr.text;
  // The launch's own line (session_launch.ts, resource_limits.ts) when `bwrap` is not on PATH.
  if (/^bwrap: bubblewrap \(bwrap\) is not installed$/m.test(text)) {
    return new SandboxMissing("session");
  }
  const failure = sandboxFailure({ exitCode: code, stdout: "", stderr: text }, "session");
  if (failure !== undefined) return new ToolError("tool_error", failure);
  const last = text.trim() === "" ? "" : `: ${stderr.lastLine}`;
  return sessionEnded(`its supervisor exited (code ${code}${last})`);
}

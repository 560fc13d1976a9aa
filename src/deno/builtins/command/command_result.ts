import { ToolError } from "../../../core/tool_error.ts";

/** The result of `bash` `exec`. A non-zero exit code is a normal result. */
export interface CommandResult {
  /** The exit code; 128 + N when a signal N ended the command (137 after a timeout's SIGKILL). */
  exitCode: number;
  /** Standard output, head and tail kept when the output is longer than the limit. */
  stdout: string;
  /** Standard error, head and tail kept when the output is longer than the limit. */
  stderr: string;
  /** Whether the deadline passed and every process of the command was killed. */
  timedOut: boolean;
}

/** Limits of one run. */
export interface RunLimits {
  /** Deadline in milliseconds; then the whole process group is killed. */
  readonly timeoutMs: number;
  /** Most characters of stdout and stderr together (a short stream leaves room to the other). */
  readonly maxChars: number;
  /** Aborting kills the process group and the run ends with `aborted`. */
  readonly signal: AbortSignal;
}

/** The error of a command aborted by its call's signal, on the host or in a sandbox session. */
export function abortedError(): ToolError {
  return new ToolError("aborted", "The bash command was aborted and its processes were killed");
}

import { ToolError } from "../../../core/tool_error.ts";
import type { ResolvedContext } from "../builtin_context.ts";
import { BoundedOutput, splitBudget } from "../command/bounded_output.ts";
import { abortedError, type CommandResult, type RunLimits } from "../command/command_result.ts";
import { limitPrefix } from "../../sandbox/resource_limits.ts";
import type { SessionSource } from "./sandbox_sessions.ts";
import { PROXY_ENV } from "../../sandbox/session_launch.ts";

/** A command to run in a session. */
export interface SessionCommand {
  /** The command text, run by `bash -c`. */
  readonly command: string;
  /** The working directory inside the sandbox (the declared workspace and the rest). */
  readonly cwd: string;
  /** The whole environment of the command. */
  readonly env: Record<string, string>;
}

// The session is given this much time beyond a command's deadline to report it, before the
// host takes it for hung and ends it.
const REPORT_GRACE_MS = 5_000;

/**
 * Runs a bash command to its end in the context's sandbox session (stdin closed), with the
 * session's resource limits as hard rlimits, collecting bounded output while it streams. At the
 * deadline or on abort the supervisor kills every process of the command; when no other command
 * runs, every process of the sandbox but the supervisor (also one that left its group and
 * cleared its environment). The supervisor's report is validated.
 *
 * Requires `allow-run` permission for `bwrap`.
 *
 * @tags allow-run
 * @param run The sessions of the `builtinTools` instance, the command (its text, directory and
 *   environment) and its limits (deadline, output limit and abort signal).
 * @returns Exit code, output and whether it timed out.
 */
export async function execInSession(
  ctx: ResolvedContext,
  run: { sessions: SessionSource; command: SessionCommand; limits: RunLimits },
): Promise<CommandResult> {
  const { sessions, command, limits } = run;
  if (ctx.bash === false) throw new TypeError("Cannot run a command: bash is off in this context");
  if (limits.signal.aborted) throw abortedError();
  const lease = await sessions.acquire(ctx);
  const session = lease.session;
  // A stream's collector and decoder are made on its first output (`true` prints nothing).
  const streams: { 1?: StreamText; 2?: StreamText } = {};
  let id: number | undefined;
  const cancel = () => id !== undefined && session.notify({ op: "cancel", target: id });
  const signal = limits.signal;
  signal.addEventListener("abort", cancel, { once: true });
  try {
    const frame = await session.request(
      {
        op: "exec",
        command: command.command,
        prefix: ctx.bash.limits === undefined ? "" : limitPrefix(ctx.bash.limits, limits.timeoutMs),
        cwd: command.cwd,
        env: sessionEnv(ctx, command.env),
        timeoutMs: limits.timeoutMs,
      },
      undefined,
      {
        timeoutMs: limits.timeoutMs + REPORT_GRACE_MS,
        onTimeout: () =>
          new ToolError(
            "timeout",
            `The sandbox did not report the end of the command within ${REPORT_GRACE_MS} ms of its deadline; the whole sandbox was stopped`,
          ),
        onStream: (stream, bytes) => {
          const text = streams[stream] ??= {
            output: new BoundedOutput(limits.maxChars),
            decoder: new TextDecoder(),
          };
          text.output.push(text.decoder.decode(bytes, { stream: true }));
        },
        onId: (sent) => id = sent,
      },
    );
    const { exit, error } = frame.header;
    if (error !== undefined) throw new ToolError("tool_error", startFailure(error));
    if (exit === undefined) {
      throw session.fail("it reported the end of a command without an exit code");
    }
    if (limits.signal.aborted) throw abortedError();
    for (const text of [streams[1], streams[2]]) text?.output.push(text.decoder.decode());
    const out = streams[1]?.output;
    const err = streams[2]?.output;
    const budget = splitBudget(limits.maxChars, {
      stdoutChars: out?.totalChars ?? 0,
      stderrChars: err?.totalChars ?? 0,
    });
    return {
      exitCode: exit.code,
      stdout: out?.text(budget.stdout) ?? "",
      stderr: err?.text(budget.stderr) ?? "",
      timedOut: exit.timedOut,
    };
  } finally {
    signal.removeEventListener("abort", cancel);
    lease.release();
  }
}

type StreamText = { readonly output: BoundedOutput; readonly decoder: TextDecoder };

/**
 * The environment of a command in a session: the context's variables, and with a network
 * allowlist the proxy variables.
 *
 * @param env The context's variables.
 * @returns The command's environment.
 */
export function sessionEnv(
  ctx: ResolvedContext,
  env: Record<string, string>,
): Record<string, string> {
  return ctx.bash === false || ctx.bash.network === undefined ? env : { ...env, ...PROXY_ENV };
}

/**
 * Why the sandbox could not start a command, from the supervisor's error (untrusted: only its
 * kind is used, never its text).
 *
 * @param error The `error` of the supervisor's answer (validated).
 * @returns The message for the model.
 */
export function startFailure(error: { name: string; message: string }): string {
  const text = error.message;
  if (/\(os error 11\)|Resource temporarily unavailable/.test(text)) {
    return "The sandbox could not start the command: its process limit is reached (processes " +
      "left running in the background count); stop some of them, or wait for them to end";
  }
  if (/\(os error 12\)|Cannot allocate memory/.test(text)) {
    return "The sandbox could not start the command: its memory limit is reached; stop the " +
      "processes left running in the background";
  }
  return "The sandbox could not start the command (bash is missing inside it or the working " +
    "directory is gone)";
}

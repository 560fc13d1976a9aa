import { z } from "zod";
import { ToolError } from "../../../core/tool_error.ts";
import type { RoutedTool, ToolContext } from "../../../core/tool_source.ts";
import { compileZodInput } from "../../../core/parse_arguments.ts";
import { type BashRequest, prepareBashCommand } from "./bash_command.ts";
import { describeBash } from "./bash_description.ts";
import { bashSubjects } from "./shell_commands.ts";
import type { ResolvedContext } from "../builtin_context.ts";
import type { ProcessTable } from "./process_table.ts";
import { runCommand } from "./run_command.ts";
import type { SessionSource } from "../sandbox/sandbox_sessions.ts";
import { execInSession, sessionEnv } from "../sandbox/session_exec.ts";
import { spawnInSession } from "../../sandbox/session_process.ts";
import { limitPrefix } from "../../sandbox/resource_limits.ts";
import { containAfterCommand, plantedNotice } from "../sandbox/planted_repositories.ts";
import {
  checkWorkspaceDisk,
  diskStoppedError,
  watchWorkspaceDisk,
} from "../sandbox/workspace_disk.ts";
import type { BashInvocation } from "./bash_invocation.ts";
import type { ProcessInfo } from "./background_process.ts";

const ACTIONS = ["exec", "start", "status", "logs", "write", "stop", "list"] as const;
const schema = z.object({
  action: z.enum(ACTIONS).optional().describe('What to do; default "exec"'),
  command: z.string().min(1).optional().describe("The bash command (exec, start)"),
  cwd: z.string().optional().describe("Working directory, relative to the workspace (exec, start)"),
  timeoutMs: z.number().int().min(1).optional().describe("Deadline of exec, in milliseconds"),
  processId: z.string().optional().describe("A background process (status, logs, write, stop)"),
  offset: z.number().int().min(0).optional().describe("Log offset to read from (logs)"),
  limit: z.number().int().min(1).optional().describe("Most log characters to return (logs)"),
  input: z.string().optional().describe("Text written to the process's stdin (write)"),
});
type BashArgs = z.infer<typeof schema>;
const input = compileZodInput(schema, "bash");

/** Options of {@linkcode createBashTool}. */
export interface BashToolOptions {
  /** The sandbox sessions that sandboxed commands (`exec` and `start`) run in. */
  readonly sessions: SessionSource;
}

/**
 * Creates the `bash` tool bound to one context: `exec` runs a command to its end; `start`,
 * `status`, `logs`, `write`, `stop` and `list` manage background processes in `processes`.
 *
 * Commands run with `bash -c` in a directory inside the workspace, stdin closed (for `exec`),
 * with only the context's environment variables; at the deadline every process of the command
 * is killed, background children included. With
 * `sandbox: "bwrap"` bubblewrap confines them to the context's roots; with `"none"` nothing
 * does: Deno's `--allow-run` lets a command do anything the operating-system user can.
 *
 * Requires `allow-run` for `bash` (and `bwrap` when sandboxed), `allow-env` for the context's
 * variables, and `allow-read` for the workspace.
 *
 * @tags allow-run, allow-env, allow-read
 * @param ctx The resolved context; its `bash` must not be `false`.
 * @param processes The background processes of this context.
 * @param options The sandbox sessions.
 */
export function createBashTool(
  ctx: ResolvedContext,
  processes: ProcessTable,
  { sessions }: BashToolOptions,
): RoutedTool {
  if (ctx.bash === false) {
    throw new TypeError("Cannot create the bash tool: bash is off in this context");
  }
  return Object.freeze({
    name: "bash",
    description: describeBash(ctx),
    inputSchema: input.jsonSchema,
    annotations: Object.freeze({
      destructiveHint: true,
      openWorldHint: ctx.bash.sandbox === "none",
    }),
    source: "builtin" as const,
    origin: "bash",
    policySubjects: bashSubjects,
    execute: (args: Record<string, unknown>, context: ToolContext) =>
      withPlantedNotice(ctx, runBash(ctx, processes, parseArgs(args), context, sessions)),
  });
}

/**
 * Adds to a sandboxed bash result what `containAfterCommand` disabled since the last report: a
 * git repository a command (or a background process) created, which git on the host would run.
 */
async function withPlantedNotice(ctx: ResolvedContext, run: Promise<unknown>): Promise<unknown> {
  const result = await run;
  if (ctx.bash === false || ctx.bash.sandbox === "none") return result;
  let notice: string | undefined;
  try {
    notice = plantedNotice(Deno.realPathSync(ctx.workspace));
  } catch {
    return result; // The workspace is gone: nothing to report on.
  }
  if (notice === undefined || result === null || typeof result !== "object") return result;
  return { ...result, notice };
}

/**
 * Contains what a sandboxed background process plants: while it runs, every few seconds (a
 * `git status` of the user's shell prompt must not wait for its end), and once it has ended.
 */
function containWhenEnded(ctx: ResolvedContext, processes: ProcessTable, info: ProcessInfo): void {
  watchWhileRunning(ctx, 1);
  const process = processes.get(info.processId);
  // Past the workspace's disk bound the process is stopped (its logs say nothing of why; the
  // next command is refused with the figures).
  const unwatch = watchWorkspaceDisk(ctx, () => void process.stop(0));
  // The table's close() waits for the last measure and walk (a `du` would outlive it).
  processes.afterEnd(process.finished.then(() => {
    watchWhileRunning(ctx, -1);
    return Promise.all([unwatch(), containAfterCommand(ctx)]);
  }, () => (watchWhileRunning(ctx, -1), unwatch())));
}

/** How often a context with running background processes is walked for planted repositories. */
const BACKGROUND_WATCH_MS = 2_000;
const watches = new Map<
  ResolvedContext,
  { running: number; timer: ReturnType<typeof setInterval> }
>();

function watchWhileRunning(ctx: ResolvedContext, change: 1 | -1): void {
  const watch = watches.get(ctx);
  if (watch === undefined) {
    if (change < 0) return;
    // A walk longer than the period (a large workspace) is not queued behind itself.
    let busy = false;
    const timer = setInterval(() => {
      if (busy) return;
      busy = true;
      containAfterCommand(ctx).finally(() => busy = false);
    }, BACKGROUND_WATCH_MS);
    Deno.unrefTimer(timer); // Never what keeps the host alive.
    watches.set(ctx, { running: 1, timer });
    return;
  }
  watch.running += change;
  if (watch.running <= 0) {
    clearInterval(watch.timer);
    watches.delete(ctx);
  }
}

async function runBash(
  ctx: ResolvedContext,
  processes: ProcessTable,
  args: BashArgs,
  context: ToolContext,
  sessions: SessionSource,
): Promise<unknown> {
  const action = args.action ?? "exec";
  switch (action) {
    case "exec": {
      const invocation = prepareBashCommand(ctx, request(args, false));
      const timeoutMs = Math.min(args.timeoutMs ?? ctx.commandTimeoutMs, ctx.commandTimeoutMs);
      const limits = { timeoutMs, maxChars: ctx.outputMaxChars, signal: context.signal };
      if (!invocation.sandboxed) return await spawnOrExplain(() => runCommand(invocation, limits));
      await sessionReady(ctx, sessions);
      // Past the workspace's disk bound the command is stopped as an abort would stop it.
      const stopped = new AbortController();
      let over = false;
      const unwatch = watchWorkspaceDisk(ctx, () => (over = true, stopped.abort()));
      try {
        return await execInSession(ctx, {
          sessions,
          command: invocation,
          limits: { ...limits, signal: AbortSignal.any([context.signal, stopped.signal]) },
        });
      } catch (error) {
        throw over ? diskStoppedError(ctx) : error;
      } finally {
        // What the command planted is disabled, and what it wrote measured, before it returns
        // (at once: one walks on the host, the other waits for `du`).
        await Promise.all([unwatch(), containAfterCommand(ctx)]);
      }
    }
    case "start": {
      const invocation = prepareBashCommand(ctx, request(args, true));
      if (!invocation.sandboxed) {
        return await spawnOrExplain(() => processes.start(invocation));
      }
      await sessionReady(ctx, sessions);
      const started = await startInSession(ctx, sessions, processes, invocation);
      containWhenEnded(ctx, processes, started);
      return started;
    }
    case "status":
      return processes.get(need(args, "processId", action)).info();
    case "logs":
      return processes.get(need(args, "processId", action)).logs(args.offset, args.limit);
    case "write": {
      const process = processes.get(need(args, "processId", action));
      const text = need(args, "input", action);
      if (!process.running) {
        throw new ToolError("tool_error", `Process "${args.processId}" has ended; start it again`);
      }
      const timeoutMs = Math.min(args.timeoutMs ?? ctx.commandTimeoutMs, ctx.commandTimeoutMs);
      const bytesWritten = await process.write(text, { timeoutMs, signal: context.signal });
      return { processId: args.processId, bytesWritten };
    }
    case "stop": {
      const process = processes.get(need(args, "processId", action));
      await process.stop();
      return process.info();
    }
    case "list":
      return { processes: processes.list() };
  }
}

/** A background process in the context's sandbox session: its limits, its network. */
async function startInSession(
  ctx: ResolvedContext,
  sessions: SessionSource,
  processes: ProcessTable,
  invocation: BashInvocation,
): Promise<ProcessInfo> {
  const lease = await sessions.acquire(ctx);
  try {
    return processes.start({
      ...invocation,
      spawn: () =>
        spawnInSession(lease, {
          command: invocation.command,
          prefix: ctx.bash === false || ctx.bash.limits === undefined
            ? ""
            : limitPrefix(ctx.bash.limits),
          cwd: invocation.cwd,
          env: sessionEnv(ctx, invocation.env),
        }),
    });
  } catch (error) {
    lease.release();
    throw error;
  }
}

const EXEC_KEYS = new Set(["action", "command", "cwd", "timeoutMs"]);

/**
 * The arguments, checked by the schema; a plain `exec` call (`command`, maybe `cwd` and
 * `timeoutMs`) is taken without it when every field is of a type the schema accepts as it is
 * (zod cost more than the rest of the command's preparation right after a spawn). Anything else,
 * errors included, goes through the schema.
 */
function parseArgs(args: Record<string, unknown>): BashArgs {
  const proto = Object.getPrototypeOf(args);
  if (proto === Object.prototype || proto === null) {
    let plain = true;
    for (const key in args) {
      if (!Object.hasOwn(args, key) || !EXEC_KEYS.has(key)) {
        plain = false;
        break;
      }
    }
    const { action, command, cwd, timeoutMs } = args;
    if (
      plain && (action === undefined || action === "exec") &&
      typeof command === "string" && command.length > 0 &&
      (cwd === undefined || typeof cwd === "string") &&
      (timeoutMs === undefined || (Number.isSafeInteger(timeoutMs) && (timeoutMs as number) >= 1))
    ) {
      return { action, command, cwd, timeoutMs: timeoutMs as number | undefined };
    }
  }
  return input.parse(args, "bash") as BashArgs;
}

function request(args: BashArgs, background: boolean): BashRequest {
  return {
    command: need(args, "command", background ? "start" : "exec"),
    cwd: args.cwd,
    background,
  };
}

/**
 * Starts the context's sandbox session (or finds it running), then refuses a command while the
 * workspace is past its disk bound: a sandbox that cannot start (bubblewrap missing) says so
 * before the disk bound is measured.
 */
async function sessionReady(ctx: ResolvedContext, sessions: SessionSource): Promise<void> {
  (await sessions.acquire(ctx)).release();
  await checkWorkspaceDisk(ctx);
}

/** Spawns on the host (`sandbox: "none"`), turning a missing bash into a clear `tool_error`. */
async function spawnOrExplain<T>(spawn: () => T | Promise<T>): Promise<T> {
  try {
    return await spawn();
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    throw new ToolError("tool_error", "Cannot run the command: bash is not installed", {
      cause: error,
    });
  }
}

function need<K extends "processId" | "command" | "input">(
  args: BashArgs,
  key: K,
  action: string,
): string {
  const value = args[key];
  if (value === undefined) {
    throw new ToolError(
      "invalid_arguments",
      `Action "${action}" needs "${key}", such as ${EXAMPLES[key]}`,
    );
  }
  return value;
}

const EXAMPLES = {
  command: '{"action":"exec","command":"ls -la"}',
  processId: '{"action":"status","processId":"p1"}',
  input: '{"action":"write","processId":"p1","input":"yes\\n"}',
};

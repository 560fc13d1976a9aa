import { join } from "pathe";
import { z } from "zod";
import { ToolError } from "../../core/tool_error.ts";
import type { RoutedTool, ToolContext } from "../../core/tool_source.ts";
import { compileZodInput } from "../../core/zod_input.ts";
import { bashEnvironment } from "./bash_permissions.ts";
import { type BashInvocation, bashInvocation } from "./bash_invocation.ts";
import type { BwrapMount, BwrapOptions } from "./bwrap_command.ts";
import type { ResolvedContext } from "./builtin_context.ts";
import type { ProcessTable } from "./process_table.ts";
import { type CommandResult, runCommand } from "./run_command.ts";
import { sandboxFailure } from "./sandbox_failure.ts";
import { readOnlyRoots, type Root, workspaceRoot } from "./allowed_roots.ts";
import { resolveDirectory } from "./workspace_paths.ts";

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
type SandboxMounts = Pick<BwrapOptions, "workspace" | "readOnlyRoots" | "protectedPaths">;

/** Test hooks of {@linkcode createBashTool}. */
export interface BashToolOptions {
  /** The bubblewrap program; default `"bwrap"`. */
  readonly bwrapProgram?: string;
}

/**
 * Creates the `bash` tool bound to one context: `exec` runs a command to its end; `start`,
 * `status`, `logs`, `write`, `stop` and `list` manage background processes in `processes`.
 *
 * Commands run with `bash -c` in a directory inside the workspace, stdin closed (for `exec`),
 * only the context's environment variables, in their own process group. With
 * `sandbox: "bwrap"` bubblewrap confines them to the context's roots; with `"none"` nothing
 * does: Deno's `--allow-run` lets a command do anything the operating-system user can.
 *
 * Requires `allow-run` for `bash` (and `bwrap` when sandboxed), `allow-env` for the context's
 * variables, and `allow-read` for the workspace.
 *
 * @tags allow-run, allow-env, allow-read
 * @param ctx The resolved context; its `bash` must not be `false`.
 * @param processes The background processes of this context.
 * @param options Test hooks.
 * @returns The tool.
 */
export function createBashTool(
  ctx: ResolvedContext,
  processes: ProcessTable,
  options: BashToolOptions = {},
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
    execute: (args: Record<string, unknown>, context: ToolContext) =>
      runBash(ctx, processes, input.parse(args, "bash") as BashArgs, context, options),
  });
}

async function runBash(
  ctx: ResolvedContext,
  processes: ProcessTable,
  args: BashArgs,
  context: ToolContext,
  options: BashToolOptions,
): Promise<unknown> {
  const action = args.action ?? "exec";
  switch (action) {
    case "exec": {
      const invocation = await prepare(ctx, args, false, options);
      const timeoutMs = Math.min(args.timeoutMs ?? ctx.commandTimeoutMs, ctx.commandTimeoutMs);
      const result = await spawnGuard(
        invocation,
        () =>
          runCommand(invocation, {
            timeoutMs,
            maxChars: ctx.outputMaxChars,
            signal: context.signal,
          }),
      );
      return checkSandbox(invocation, result);
    }
    case "start": {
      const invocation = await prepare(ctx, args, true, options);
      return spawnGuard(invocation, () => processes.start(args.command!, invocation));
    }
    case "status":
      return processes.get(need(args, "processId", action)).info();
    case "logs":
      return processes.logs(need(args, "processId", action), args.offset, args.limit);
    case "write": {
      const process = processes.get(need(args, "processId", action));
      const text = need(args, "input", action);
      if (!process.running) {
        throw new ToolError("tool_error", `Process "${args.processId}" has ended; start it again`);
      }
      return { processId: args.processId, bytesWritten: await process.write(text) };
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

async function prepare(
  ctx: ResolvedContext,
  args: BashArgs,
  background: boolean,
  options: BashToolOptions,
): Promise<BashInvocation> {
  const command = need(args, "command", args.action ?? "exec");
  const bash = ctx.bash as Exclude<ResolvedContext["bash"], false>;
  const sandboxed = bash.sandbox === "bwrap";
  const env = bashEnvironment(sandboxed ? ["bash", "bwrap"] : ["bash"], bash.env);
  const directory = await resolveDirectory(ctx, args.cwd);
  if (directory.root !== ctx.workspace) {
    throw new ToolError(
      "permission_denied",
      `The working directory "${args.cwd}" is outside the workspace: commands run in the workspace`,
    );
  }
  const cwd = directory.real;
  // Only the sandbox needs the roots (for its bind mounts: real path onto declared path).
  const roots = sandboxed ? await sandboxMounts(ctx) : undefined;
  return bashInvocation({
    sandbox: bash.sandbox,
    command,
    cwd,
    roots,
    env,
    background,
    bwrapProgram: options.bwrapProgram,
  });
}

async function sandboxMounts(ctx: ResolvedContext): Promise<SandboxMounts> {
  const mount = (root: Root) => ({ source: root.real, dest: root.declared });
  const workspace = await workspaceRoot(ctx);
  const protectedPaths: BwrapMount[] = [];
  for (const path of ctx.protectedPaths) {
    // Only a real directory or file inside the workspace: a symlink could point anywhere.
    const info = await Deno.lstat(join(workspace.real, path)).catch(() => undefined);
    if (info !== undefined && !info.isSymlink) {
      protectedPaths.push({ source: join(workspace.real, path), dest: join(ctx.workspace, path) });
    }
  }
  return {
    workspace: mount(workspace),
    readOnlyRoots: (await readOnlyRoots(ctx)).map(mount),
    protectedPaths,
  };
}

async function spawnGuard<T>(invocation: BashInvocation, spawn: () => T | Promise<T>): Promise<T> {
  try {
    return await spawn();
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new ToolError(
        "tool_error",
        invocation.sandboxed
          ? "The bash sandbox could not start: bubblewrap (bwrap) is not installed. The command did not run; install bubblewrap (apt-get install bubblewrap)"
          : "Cannot run the command: bash is not installed",
        { cause: error },
      );
    }
    throw error;
  }
}

function checkSandbox(invocation: BashInvocation, result: CommandResult): CommandResult {
  if (!invocation.sandboxed) return result;
  const failure = sandboxFailure(result.exitCode, result.stdout, result.stderr);
  if (failure !== undefined) throw new ToolError("tool_error", failure);
  return result;
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

function describeBash(ctx: ResolvedContext): string {
  const bash = ctx.bash as Exclude<ResolvedContext["bash"], false>;
  const confinement = bash.sandbox === "bwrap"
    ? "Commands run in a bubblewrap sandbox: only the workspace (read-write)" +
      (ctx.readOnlyRoots.length > 0 ? ", the read-only roots" : "") +
      ", system directories (read-only) and an empty /tmp are visible; there is no network."
    : "Commands are NOT sandboxed: they can do anything the operating-system user can " +
      "(Deno's --allow-run does not confine child processes); only cwd is checked.";
  return `Runs a bash command in the workspace. ${confinement} ` +
    `action "exec" (default) runs command to its end with stdin closed and returns JSON ` +
    `{ exitCode, stdout, stderr, timedOut } (timeout at most ${ctx.commandTimeoutMs} ms, output ` +
    `cut to ${ctx.outputMaxChars} characters per stream). Background processes: "start" ` +
    `{ command } returns a processId; "status", "logs" { offset, limit }, "write" { input }, ` +
    `"stop" take processId; "list" shows all.`;
}

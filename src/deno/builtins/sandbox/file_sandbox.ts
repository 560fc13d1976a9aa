import { ToolError } from "../../../core/tool_error.ts";
import { sandboxMounts } from "../bash/bash_command.ts";
import { bashEnvironment } from "../bash/bash_permissions.ts";
import type { ResolvedContext } from "../builtin_context.ts";
import { bwrapCommand } from "./bwrap_command.ts";
import { bwrapSearchPath } from "./bwrap_search_path.ts";

/** How a script run in the file sandbox ended. */
export interface FileSandboxRun {
  /** The script's exit code. */
  code: number;
  /** Its standard output. */
  stdout: string;
  /** Its standard error. */
  stderr: string;
}

/**
 * Whether the file tools' writes run inside bubblewrap: exactly when bash runs sandboxed. Only
 * then can a command of the model (a background process swapping a directory for a symlink)
 * race the path checks, and only then is bubblewrap known to be wanted and allowed.
 *
 * @param ctx The request's context.
 * @returns `true` for `bash: { sandbox: "bwrap" }` (and `bash: true`).
 */
export function usesFileSandbox(ctx: ResolvedContext): boolean {
  return ctx.bash !== false && ctx.bash.sandbox === "bwrap";
}

/**
 * Runs a fixed bash script inside a bubblewrap sandbox with the same mounts as the bash tool
 * (the workspace read-write at its declared path, the read-only roots and existing protected
 * paths read-only, the system directories read-only, nothing else), so that a symlink swapped
 * into the workspace can only lead to what a sandboxed command could reach anyway.
 *
 * The script gets `args` as `$1…` and `input` (concatenated) on stdin. It is killed after the
 * context's `commandTimeoutMs`. Throws a `ToolError` when bubblewrap is not allowed
 * (`permission_denied`), not installed or cannot start (`tool_error`), or when the deadline passed.
 *
 * Requires `allow-run` permission for `bwrap`.
 *
 * @tags allow-run
 * @param ctx The request's context (bash sandboxed).
 * @param script The bash script: fixed text, never containing model input.
 * @param args The script's arguments.
 * @param input The bytes written to its stdin, in order.
 * @returns The exit code and output.
 */
export async function runInFileSandbox(
  ctx: ResolvedContext,
  script: string,
  args: readonly string[],
  input: readonly Uint8Array[],
): Promise<FileSandboxRun> {
  const child = await spawnInFileSandbox(ctx, script, args, "piped");
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill("SIGKILL");
  }, ctx.commandTimeoutMs);
  try {
    const [status, stdout, stderr] = await Promise.all([
      child.status,
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      feed(child.stdin, input),
    ]);
    if (timedOut) throw fileSandboxTimeout(ctx);
    assertFileSandboxRan(status.code, stdout, stderr);
    return { code: status.code, stdout, stderr };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Spawns a fixed bash script in the file sandbox (see {@linkcode runInFileSandbox}), with stdout
 * and stderr piped. Throws a `ToolError` when bubblewrap is not allowed or not installed.
 *
 * Requires `allow-run` permission for `bwrap`.
 *
 * @tags allow-run
 * @param ctx The request's context (bash sandboxed).
 * @param script The bash script: fixed text, never containing model input.
 * @param args The script's arguments.
 * @param stdin Whether the script's stdin is piped.
 * @returns The child.
 */
export async function spawnInFileSandbox(
  ctx: ResolvedContext,
  script: string,
  args: readonly string[],
  stdin: "piped" | "null",
): Promise<Deno.ChildProcess> {
  if (ctx.bash === false) throw new TypeError("Cannot use the file sandbox: bash is off");
  // Only PATH is needed (to find bubblewrap); nothing of the host's environment goes inside.
  const env = bashEnvironment(["bwrap"], ctx.bash.env.filter((name) => name === "PATH"));
  const mounts = await sandboxMounts(ctx);
  const path = bwrapSearchPath(env.PATH, [mounts.workspace, ...mounts.readOnlyRoots]);
  try {
    return new Deno.Command("bwrap", {
      args: bwrapCommand({
        ...mounts,
        cwd: mounts.workspace.dest,
        command: ["bash", "-c", script, "toolroute-files", ...args],
      }),
      env: { PATH: path },
      clearEnv: true,
      stdin,
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    throw new ToolError("tool_error", notStarted("bubblewrap (bwrap) is not installed"), {
      cause: error,
    });
  }
}

/**
 * Throws a `ToolError` when a file sandbox run is bubblewrap's own failure (exit code 1 and a
 * `bwrap: ` message): the script did not run.
 *
 * @param code The exit code.
 * @param stdout The standard output.
 * @param stderr The standard error.
 */
export function assertFileSandboxRan(code: number, stdout: string, stderr: string): void {
  if (code === 1 && stdout === "" && stderr.startsWith("bwrap: ")) {
    const cause = stderr.split("\n", 1)[0].slice("bwrap: ".length).trim();
    throw new ToolError("tool_error", notStarted(`bubblewrap failed (${cause})`));
  }
}

/**
 * The error of a file sandbox run stopped at the context's `commandTimeoutMs`.
 *
 * @param ctx The request's context.
 * @returns The `timeout` tool error.
 */
export function fileSandboxTimeout(ctx: ResolvedContext): ToolError {
  return new ToolError(
    "timeout",
    `The file operation took longer than ${ctx.commandTimeoutMs} ms in the sandbox and was stopped`,
  );
}

async function feed(stdin: WritableStream<Uint8Array>, input: readonly Uint8Array[]) {
  const writer = stdin.getWriter();
  try {
    for (const chunk of input) if (chunk.length > 0) await writer.write(chunk);
    await writer.close();
  } catch {
    // The script ended before reading everything (it failed); its exit code says why.
    await writer.abort().catch(() => {});
  }
}

function notStarted(cause: string): string {
  return `The file sandbox could not start: ${cause}. Nothing was read or written, and file ` +
    "operations never run unconfined instead while bash is sandboxed; check that bubblewrap is " +
    "installed and can create its namespaces";
}

/**
 * The error class of a failed command's message (its operating-system reason), without the
 * paths it names: a path there may be where a swapped symlink led.
 *
 * @param stderr The standard error of the sandboxed script.
 * @returns An error of the matching `Deno.errors` class, or a plain one.
 */
export function sandboxSystemError(stderr: string): Error {
  const line = stderr.trim().split("\n").at(-1) ?? "";
  const reason = line.slice(line.lastIndexOf(": ") + 2).trim() ||
    "the sandboxed file operation failed";
  if (/No such file or directory/.test(reason)) return new Deno.errors.NotFound(reason);
  if (/Not a directory/.test(reason)) return new Deno.errors.NotADirectory(reason);
  if (/Is a directory|overwrite directory/.test(line)) return new Deno.errors.IsADirectory(reason);
  if (/Permission denied|Operation not permitted|Read-only file system/.test(reason)) {
    return new Deno.errors.PermissionDenied(reason);
  }
  if (/File exists/.test(reason)) return new Deno.errors.AlreadyExists(reason);
  // Never a message that names a path (it could be where a swapped symlink led).
  return new Error(/['"/]/.test(reason) ? "the sandboxed file operation failed" : reason);
}

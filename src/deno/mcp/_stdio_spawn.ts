import type { stdioChildCommand, StdioServerCommand } from "./stdio_child_command.ts";
import { stdioSandboxPlan, unconfinedWarning } from "./stdio_sandbox.ts";
import { SandboxMissing } from "../sandbox/bwrap_missing.ts";
import { bwrapHostPath } from "../sandbox/bwrap_search_path.ts";
import { hostServerPaths, type ServerIdentity } from "../sandbox/server_paths.ts";
import { type SandboxedChild, spawnSandboxed } from "../sandbox/spawn_sandboxed.ts";

/** A stdio server's process: its sandbox's when it runs in one. */
export interface StdioServerProcess {
  /** The process (its stdin, stdout and stderr are the server's). */
  readonly child: Deno.ChildProcess;
  /** Its sandbox, which says why it ended when a limit killed it; none when unconfined. */
  readonly sandboxed?: SandboxedChild;
}

/** Options of {@linkcode spawnStdioServer}. */
export interface StdioSpawnOptions {
  /** The config's identity, for the sandbox's fixed socket and package cache (`serverPaths`). */
  readonly identity?: ServerIdentity;
  /** Called with the warning when the server runs unconfined because bubblewrap is missing. */
  readonly onUnconfined?: (warning: string) => void;
}

/**
 * Starts a stdio server as its config and the machine say (`stdioSandboxPlan`): in its own
 * bubblewrap sandbox, or unconfined (with the warning when bubblewrap is missing and the config
 * asked for nothing). When bubblewrap could not be looked for up front (no read permission on
 * the `PATH`'s folders) and its start says it is missing (`SandboxMissing`), a server whose
 * config asked for nothing runs as it would have, unconfined with the warning; one that asked
 * fails. Throws what the start threw (`NotFound`, `NotCapable`, the plan's `Error`).
 *
 * Requires `allow-run` for the command (and `bash`, `bwrap` when sandboxed).
 *
 * @tags allow-run
 * @param config The server's config (its `sandbox` setting).
 * @param resolved Its command as resolved for the child (`stdioChildCommand`).
 * @param options Its identity and the unconfined warning's receiver.
 */
export async function spawnStdioServer(
  config: StdioServerCommand,
  resolved: ReturnType<typeof stdioChildCommand>,
  options: StdioSpawnOptions = {},
): Promise<StdioServerProcess> {
  const line = shownCommand(config, resolved);
  const plan = stdioSandboxPlan(config.sandbox, {
    command: line,
    path: bwrapHostPath(resolved.env.PATH),
    os: Deno.build.os,
  });
  if (plan.kind === "unconfined") {
    if (plan.warning !== undefined) options.onUnconfined?.(plan.warning);
    return { child: spawnUnconfined(resolved) };
  }
  const paths = options.identity === undefined ? undefined : hostServerPaths(options.identity);
  const sandbox = paths === undefined ? plan.sandbox : {
    ...plan.sandbox,
    socket: paths.socket,
    ...(paths.cache ? { cache: paths.cache } : {}),
  };
  try {
    const sandboxed = await spawnSandboxed(resolved, sandbox);
    return { child: sandboxed.child, sandboxed };
  } catch (error) {
    if (config.sandbox !== undefined || !(error instanceof SandboxMissing)) throw error;
    options.onUnconfined?.(unconfinedWarning(line));
    return { child: spawnUnconfined(resolved) };
  }
}

/**
 * The command line as a warning shows it: an argument that is a secret (`secretArgs`, such as a
 * VS Code input's answer) reads `[redacted]`, whatever its length (a log line is no result whose
 * words a redaction could garble). The child's arguments are the config's with flags added, so a
 * secret is told by its value.
 */
function shownCommand(
  config: StdioServerCommand,
  resolved: ReturnType<typeof stdioChildCommand>,
): string {
  const secrets = new Set((config.secretArgs ?? []).map((index) => config.args?.[index]));
  const args = resolved.args.map((arg) => secrets.has(arg) ? "[redacted]" : arg);
  return [resolved.command, ...args].join(" ");
}

/** Starts the server as a plain process of the user. */
function spawnUnconfined(resolved: ReturnType<typeof stdioChildCommand>): Deno.ChildProcess {
  return new Deno.Command(resolved.command, {
    args: resolved.args,
    env: resolved.env,
    clearEnv: true,
    cwd: resolved.cwd,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

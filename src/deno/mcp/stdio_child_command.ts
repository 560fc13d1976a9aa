import { basename } from "@std/path";

/** How to start a stdio MCP server: the `{ command, args?, env?, cwd? }` form of a config. */
export interface StdioServerCommand {
  /** The program to run, such as `"deno"` or `"npx"`. */
  command: string;
  /** Its arguments. */
  args?: string[];
  /** Environment variables set for the child, on top of a minimal safe set. */
  env?: Record<string, string>;
  /** The child's working directory. */
  cwd?: string;
}

/** A fully resolved child process: what `Deno.Command` receives. */
export interface StdioChildCommand {
  /** The program. */
  command: string;
  /** The arguments, with `--no-prompt` inserted for a Deno child. */
  args: string[];
  /** The complete environment of the child (the host's is cleared). */
  env: Record<string, string>;
  /** The working directory, when set. */
  cwd?: string;
}

/** Host variables a child inherits: those a program needs to start, never secrets. */
const INHERITED_ENV: readonly string[] = Deno.build.os === "windows"
  ? [
    "APPDATA",
    "HOMEDRIVE",
    "HOMEPATH",
    "LOCALAPPDATA",
    "PATH",
    "PROCESSOR_ARCHITECTURE",
    "SYSTEMDRIVE",
    "SYSTEMROOT",
    "TEMP",
    "USERNAME",
    "USERPROFILE",
    "PROGRAMFILES",
  ]
  : ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG"];

/** Deno subcommands that run a script under Deno's permission system. */
const DENO_RUNNERS = new Set(["run", "serve"]);
/** Deno subcommands that always run with every permission (flags cannot narrow them). */
const DENO_ALL_PERMISSIONS = new Set(["eval", "repl"]);

/**
 * Resolves a stdio server config into the exact child process to spawn.
 *
 * - The environment is the config's `env` over a minimal set inherited from the host (`PATH`,
 *   `HOME`, `USER`, `LANG`, …), never the whole host environment.
 * - A Deno child (`deno` or `Deno.execPath()`, with `run` or `serve`) always gets `--no-prompt`
 *   and exactly the permission flags of the config: it is spawned with `Deno.Command`, which never
 *   adds `-A` (Node's `child_process` under Deno does). It also gets the host's Deno cache
 *   (`DENO_DIR`) so it does not download its dependencies again, and `NO_COLOR=1`.
 *
 * `deno eval` and `deno repl` are refused with a `TypeError`: they always run with every
 * permission. Reads only the inherited variables; those the host may not read are skipped.
 *
 * @param config The server's command, arguments, environment and working directory.
 * @returns The child process to spawn.
 */
export function stdioChildCommand(config: StdioServerCommand): StdioChildCommand {
  const args = [...(config.args ?? [])];
  const env: Record<string, string> = {};
  for (const name of INHERITED_ENV) {
    const value = readEnv(name);
    if (value !== undefined && !value.startsWith("()")) env[name] = value;
  }
  if (isDeno(config.command)) {
    const runner = args.findIndex((arg) => !arg.startsWith("-"));
    if (runner !== -1 && DENO_ALL_PERMISSIONS.has(args[runner])) {
      throw new TypeError(
        `Cannot start "deno ${args[runner]}" as an MCP server: it always has every permission; ` +
          `use "deno run" with explicit permission flags`,
      );
    }
    if (runner !== -1 && DENO_RUNNERS.has(args[runner]) && !args.includes("--no-prompt")) {
      args.splice(runner + 1, 0, "--no-prompt");
    }
    const denoDir = readEnv("DENO_DIR") ?? defaultDenoDir();
    if (denoDir !== undefined) env.DENO_DIR = denoDir;
    env.NO_COLOR = "1"; // Its stderr is read by a program, not shown on a terminal.
  }
  Object.assign(env, config.env ?? {});
  return { command: config.command, args, env, ...(config.cwd ? { cwd: config.cwd } : {}) };
}

/**
 * Whether a command names the Deno executable: `Deno.execPath()` itself, or a program named
 * `deno` (`deno.exe` on Windows).
 *
 * @param command The command of a config.
 * @returns Whether it is Deno.
 */
export function isDeno(command: string): boolean {
  if (command === safeExecPath()) return true;
  return /^deno(\.exe)?$/i.test(basename(command.replaceAll("\\", "/")));
}

function safeExecPath(): string | undefined {
  try {
    return Deno.execPath();
  } catch {
    return undefined;
  }
}

function readEnv(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}

/** Deno's default cache folder, as the host resolves it, so the child shares it. */
function defaultDenoDir(): string | undefined {
  const home = readEnv("HOME");
  switch (Deno.build.os) {
    case "windows": {
      const local = readEnv("LOCALAPPDATA");
      return local ? `${local}\\deno` : undefined;
    }
    case "darwin":
      return home ? `${home}/Library/Caches/deno` : undefined;
    default: {
      const xdg = readEnv("XDG_CACHE_HOME");
      if (xdg) return `${xdg}/deno`;
      return home ? `${home}/.cache/deno` : undefined;
    }
  }
}

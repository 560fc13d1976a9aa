import { basename } from "@std/path";
import { hostEnv } from "../sandbox/bwrap_search_path.ts";
import type { McpStdioSandboxSetting } from "../../core/mcp/mcp_server_config.ts";

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
  /** The indexes in `args` whose values are secrets (never shown in a warning or message). */
  secretArgs?: number[];
  /** Where it runs: its own bubblewrap sandbox (the default where installed), or `"none"`. */
  sandbox?: McpStdioSandboxSetting;
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

/**
 * Network variables a child inherits when the host has them set, so a server that downloads or
 * calls out works behind a proxy or a private CA as it does in a shell. Pass `inheritEnv` to
 * {@linkcode stdioChildCommand} without a name to keep it from children.
 */
export const NETWORK_ENV: readonly string[] = Object.freeze([
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
]);

/** Options of {@linkcode stdioChildCommand}. */
export interface StdioChildOptions {
  /** Host variables passed when set, besides the minimal set. Default: {@linkcode NETWORK_ENV}. */
  inheritEnv?: readonly string[];
}

/** Deno subcommands that run a script under Deno's permission system. */
const DENO_RUNNERS = new Set(["run", "serve"]);
/** Deno subcommands that always run with every permission (flags cannot narrow them). */
const DENO_ALL_PERMISSIONS = new Set(["eval", "repl"]);

/**
 * Resolves a stdio server config into the exact child process to spawn.
 *
 * - The environment is the config's `env` over a minimal set inherited from the host (`PATH`,
 *   `HOME`, `USER`, `LANG`, …) and the network variables that are set ({@linkcode NETWORK_ENV}:
 *   proxies and CA bundles, unless `options.inheritEnv` says otherwise), never the whole host
 *   environment.
 * - A Deno child (`deno` or `Deno.execPath()`, with `run` or `serve`) always gets `--no-prompt`
 *   and exactly the permission flags of the config: it is spawned with `Deno.Command`, which never
 *   adds `-A` (Node's `child_process` under Deno does). It also gets the host's Deno cache
 *   (`DENO_DIR`) so it does not download its dependencies again, and `NO_COLOR=1`.
 *
 * `deno eval` and `deno repl` are refused with a `TypeError`: they always run with every
 * permission. Reads only the inherited variables; those the host may not read are skipped.
 *
 * @param config The server's command, arguments, environment and working directory.
 * @param options The host variables passed when set.
 * @returns The child process to spawn.
 */
export function stdioChildCommand(
  config: StdioServerCommand,
  options: StdioChildOptions = {},
): StdioChildCommand {
  const args = [...(config.args ?? [])];
  const env: Record<string, string> = {};
  for (const name of [...INHERITED_ENV, ...(options.inheritEnv ?? NETWORK_ENV)]) {
    const value = hostEnv(name);
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
    const denoDir = hostEnv("DENO_DIR") ?? defaultDenoDir();
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

/** Deno's default cache folder, as the host resolves it, so the child shares it. */
function defaultDenoDir(): string | undefined {
  const home = hostEnv("HOME");
  switch (Deno.build.os) {
    case "windows": {
      const local = hostEnv("LOCALAPPDATA");
      return local ? `${local}\\deno` : undefined;
    }
    case "darwin":
      return home ? `${home}/Library/Caches/deno` : undefined;
    default: {
      const xdg = hostEnv("XDG_CACHE_HOME");
      if (xdg) return `${xdg}/deno`;
      return home ? `${home}/.cache/deno` : undefined;
    }
  }
}

/**
 * Whether a command may download before it answers (`npx -y`, `npm exec`, `pnpm dlx`, `bunx`,
 * `uvx`, `deno run`), so its first connect gets more time.
 *
 * @param config The command and arguments.
 * @returns Whether a first start may download.
 */
export function mayDownload(config: StdioServerCommand): boolean {
  const name = basename(config.command.replaceAll("\\", "/")).replace(/\.(exe|cmd)$/i, "");
  const args = config.args ?? [];
  if (["npx", "bunx", "uvx", "pipx"].includes(name)) return true;
  if (["npm", "pnpm", "yarn"].includes(name)) return args.some((a) => a === "exec" || a === "dlx");
  if (isDeno(config.command)) return args.some((arg) => DENO_RUNNERS.has(arg));
  return false;
}

import { type CliIo, DENO_IO } from "./cli_io.ts";
import { HELP_TEXT } from "./help_text.ts";
import { type ArgSpec, parseArgs } from "./parse_args.ts";
import { UsageError } from "./usage_error.ts";

const COMMON = ["config", "workspace"];
/** `--http` alone means serve's default address, for `serve` and for the `flags` that run it. */
const HTTP = { http: "127.0.0.1:8787" };
const SPECS: Record<string, ArgSpec> = {
  serve: {
    string: [...COMMON, "user", "audit", "store", "token-file"],
    optional: HTTP,
    boolean: ["stdio", "allow-excess", "shared-workspace", "defer"],
  },
  tools: { string: [...COMMON, "user"], boolean: ["json"] },
  call: { string: [...COMMON, "user", "timeout", "store"] },
  flags: {
    string: [...COMMON, "audit", "store", "token-file"],
    optional: HTTP,
    boolean: ["explain"],
  },
  lock: { string: COMMON, boolean: ["check"] },
  init: { string: COMMON },
  grants: { string: ["store", "user"], boolean: ["json"] },
};

/**
 * Runs the `toolroute` command line: `serve`, `tools`, `call`, `flags`, `lock`, `init` or
 * `grants`.
 *
 * Never throws and never prints a stack trace: misuse (unknown flags, a bad config, permissions
 * broader than needed) prints a message and returns 2.
 *
 * @tags allow-read, allow-write, allow-run, allow-env, allow-net
 * @param args The arguments, such as `Deno.args`.
 * @param io Where output goes. Default: stdout and stderr.
 * @returns The exit code: 0 success, 1 an error result of `call`, 2 misuse.
 */
export async function runCli(args: readonly string[], io: CliIo = DENO_IO): Promise<number> {
  const [command, ...rest] = args;
  try {
    if (command === undefined || command === "help" || command === "--help" || command === "-h") {
      io.out(HELP_TEXT[rest[0] ?? ""] ?? HELP_TEXT[""]);
      return command === undefined ? 2 : 0;
    }
    if (command === "--version" || command === "-V") {
      io.out("toolroute 0.1.0");
      return 0;
    }
    // Own names only: an inherited member (`constructor`, `toString`) is no command.
    const spec = Object.hasOwn(SPECS, command) ? SPECS[command] : undefined;
    if (spec === undefined) {
      throw new UsageError(
        `Unknown command "${command}"; use serve, tools, call, flags, lock, init or grants (see "toolroute --help")`,
      );
    }
    const { flags, positionals } = parseArgs(rest, spec, { command });
    if (flags.help === true) {
      io.out(HELP_TEXT[command]);
      return 0;
    }
    if (command !== "call" && command !== "grants" && positionals.length > 0) {
      throw new UsageError(
        `Unexpected argument "${
          positionals[0]
        }" for "toolroute ${command}"; see "toolroute ${command} --help"`,
      );
    }
    // Each command's module is loaded when it runs: a start loads only what its command uses
    // (`--help`, `init` and `grants` load no MCP SDK at all).
    const commands: Record<string, () => Promise<number>> = {
      serve: async () => (await import("./serve_command.ts")).serveCommand(flags, io),
      tools: async () => (await import("./tools_command.ts")).toolsCommand(flags, io),
      call: async () => (await import("./call_command.ts")).callCommand({ flags, positionals }, io),
      flags: async () => (await import("./flags_command.ts")).flagsCommand(flags, io),
      lock: async () => (await import("./lock_command.ts")).lockCommand(flags, io),
      init: async () => (await import("./init_command.ts")).initCommand(flags, io),
      grants: async () =>
        (await import("./grants_command.ts")).grantsCommand({ flags, positionals }, io),
    };
    return await commands[command]();
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`toolroute: ${error.message}`);
      return 2;
    }
    io.err(`toolroute: ${describe(error)}`);
    return error instanceof TypeError || error instanceof RangeError ? 2 : 1;
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    if (error.name === "NotCapable") {
      return `${error.message}; run "toolroute flags" for the permission flags this config needs`;
    }
    return error.message;
  }
  return String(error);
}

import { UsageError } from "./usage_error.ts";

/** The flags one command takes. */
export interface ArgSpec {
  /** Flags that take a value (`--config FILE` or `--config=FILE`). */
  string?: readonly string[];
  /** Flags that take a value that may be left out, with the value used then. */
  optional?: Readonly<Record<string, string>>;
  /** Flags without a value. */
  boolean?: readonly string[];
}

/** Parsed arguments: flags by name (without `--`) and positionals in order. */
export interface ParsedArgs {
  /** Flag values: a string, or `true` for boolean flags. */
  flags: Record<string, string | true>;
  /** The other arguments, in order. */
  positionals: string[];
}

/**
 * Parses command-line arguments against a spec. Throws a {@linkcode UsageError} for an unknown
 * flag, a missing value, a repeated flag or a value given to a boolean flag.
 *
 * @param args The arguments after the command name.
 * @param spec The flags the command takes.
 * @param command The command, for messages.
 * @returns The flags and positionals.
 */
export function parseArgs(args: readonly string[], spec: ArgSpec, command: string): ParsedArgs {
  const strings = new Set(spec.string ?? []);
  const booleans = new Set(spec.boolean ?? []);
  const optional = spec.optional ?? {};
  const flags: Record<string, string | true> = {};
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      positionals.push(arg);
      continue;
    }
    const match = arg.match(/^--?([^=]+)(?:=(.*))?$/s);
    const name = match?.[1] === "h" ? "help" : match?.[1] ?? arg;
    const inline = match?.[2];
    if (name in flags) throw new UsageError(`"--${name}" is given twice; give it once`);
    if (booleans.has(name) || name === "help") {
      if (inline !== undefined) throw new UsageError(`"--${name}" takes no value`);
      flags[name] = true;
    } else if (strings.has(name) || name in optional) {
      let value = inline;
      if (value === undefined) {
        const next = args[i + 1];
        if (next !== undefined && !next.startsWith("--")) {
          value = next;
          i++;
        } else if (name in optional) value = optional[name];
      }
      if (value === undefined || value === "") {
        throw new UsageError(`"--${name}" needs a value; see "toolroute ${command} --help"`);
      }
      flags[name] = value;
    } else {
      throw new UsageError(
        `Unknown flag "${
          arg.split("=")[0]
        }" for "toolroute ${command}"; see "toolroute ${command} --help"`,
      );
    }
  }
  return { flags, positionals };
}

import { parseArgs as parseFlags } from "@std/cli/parse-args";
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
 * Parses command-line arguments against a spec (std's `parseArgs`). Throws a
 * {@linkcode UsageError} for an unknown flag, a missing value, a repeated flag or a value given
 * to a boolean flag, which std would accept silently.
 *
 * @param args The arguments after the command name.
 * @param options The `command`, for messages.
 */
export function parseArgs(
  args: readonly string[],
  spec: ArgSpec,
  options: { command: string },
): ParsedArgs {
  const { command } = options;
  const optional = spec.optional ?? {};
  const strings = [...spec.string ?? [], ...Object.keys(optional)];
  const booleans = [...spec.boolean ?? [], "help"];
  const see = `see "toolroute ${command} --help"`;
  const end = args.indexOf("--");
  // std reads `--json=1` as true and `--config=` as an unknown flag: both are misuse here.
  for (const arg of end === -1 ? args : args.slice(0, end)) {
    const inline = arg.match(/^--?([^=]+)=(.*)$/s);
    if (inline !== null && booleans.includes(inline[1])) {
      throw new UsageError(`"--${inline[1]}" takes no value`);
    }
    if (inline !== null && inline[2] === "" && strings.includes(inline[1])) {
      throw new UsageError(`"--${inline[1]}" needs a value; ${see}`);
    }
  }
  const parsed = parseFlags([...args], {
    // "_": positionals stay text (std would turn "007" into 7).
    string: ["_", ...strings],
    boolean: booleans,
    alias: { help: "h" },
    collect: [...strings, ...booleans],
    unknown: (arg: string, key?: string) => {
      if (key === undefined) return true;
      throw new UsageError(
        `Unknown flag "${arg.split("=")[0]}" for "toolroute ${command}"; ${see}`,
      );
    },
  });
  const flags: Record<string, string | true> = {};
  for (const name of [...strings, ...booleans]) {
    const values = parsed[name] as (string | boolean)[];
    if (values.length > 1) throw new UsageError(`"--${name}" is given twice; give it once`);
    const value = values[0];
    if (value === true) flags[name] = true;
    else if (typeof value !== "string") continue;
    else if (value !== "") flags[name] = value;
    else if (name in optional) flags[name] = optional[name];
    else throw new UsageError(`"--${name}" needs a value; ${see}`);
  }
  return { flags, positionals: (parsed._ as unknown[]).map(String) };
}

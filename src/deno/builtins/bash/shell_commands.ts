import {
  type Command,
  forEachChild,
  parse,
  type ParsedScript,
  type Redirection,
  type SyntaxNode,
  type Word,
  type WordPart,
} from "unbash";
import type { PolicySubjects, ShellCommand } from "../../../core/tool_source.ts";

/** Word parts that stay what the rule read: quoting, and globbing of file names in arguments. */
const LITERAL_PARTS: ReadonlySet<WordPart["type"]> = new Set([
  "Literal",
  "SingleQuoted",
  "AnsiCQuoted",
  "DoubleQuoted",
  "LocaleString",
  "Glob",
  "ExtendedGlob",
  "BraceExpansion",
]);
const GLOB_PARTS: ReadonlySet<WordPart["type"]> = new Set([
  "Glob",
  "ExtendedGlob",
  "BraceExpansion",
]);

/**
 * The longest script `bash(...)` specifiers read. The parser's time grows faster than the
 * script for some shapes (thousands of substitutions), and it runs on the host's event loop;
 * longer scripts cannot be read, so the policy fails closed for them.
 */
export const MAX_POLICY_SCRIPT_CHARS = 16_384;

/**
 * What `bash(...)` policy specifiers read in a `bash` call: the simple commands of its script,
 * parsed with the bash grammar (npm `unbash`). Throws when the script does not parse or is
 * longer than {@linkcode MAX_POLICY_SCRIPT_CHARS}, so that the policy fails closed.
 *
 * @returns The commands (none for calls without a command).
 */
export function bashSubjects(args: Record<string, unknown>): PolicySubjects {
  const command = args.command;
  if (command === undefined) return { kind: "commands", commands: [] };
  if (typeof command !== "string") throw new TypeError('"command" must be a string');
  if (command.length > MAX_POLICY_SCRIPT_CHARS) {
    throw new RangeError(`The command is longer than ${MAX_POLICY_SCRIPT_CHARS} characters`);
  }
  const commands = shellCommands(command);
  return { kind: "commands", commands, variants: commandVariants(commands) };
}

/** Programs that run a command given in their arguments. */
const WRAPPERS: ReadonlySet<string> = new Set([
  "builtin",
  "chroot",
  "command",
  "doas",
  "env",
  "exec",
  "find",
  "flock",
  "ionice",
  "nice",
  "nohup",
  "nsenter",
  "parallel",
  "setsid",
  "ssh",
  "stdbuf",
  "strace",
  "sudo",
  "timeout",
  "unshare",
  "watch",
  "xargs",
]);
/** Programs that run their `-c` argument (or, for `eval`, their arguments) as a script. */
const SHELLS: ReadonlySet<string> = new Set(["bash", "dash", "eval", "ksh", "sh", "su", "zsh"]);
/**
 * How many other readings one call may have (more cannot be read: the policy fails closed), and
 * how deeply wrappers and scripts in scripts are followed.
 */
const MAX_VARIANTS = 4096;
const MAX_NESTING = 4;

/**
 * Other readings of commands for deny and ask rules (allow rules never read them): the program by
 * its file name (`/bin/rm x` as `rm x`); for a program that runs a command from its arguments
 * (`env`, `sudo`, `xargs`, `find -exec` …), every run of its arguments from each position on,
 * wider than what runs, which only makes a deny match more; for `eval`, `bash -c` and `sh -c`,
 * the commands of the script they are given, when it is literal and parses. Throws past
 * {@linkcode MAX_VARIANTS} readings, so that the policy fails closed.
 *
 * @param commands The commands of a script.
 * @returns The readings, as text.
 */
export function commandVariants(commands: readonly ShellCommand[]): string[] {
  const variants: string[] = [];
  // A script reached through several wrappers is parsed once.
  const parsed = new Map<string, ShellCommand[]>();
  const add = (text: string): void => {
    if (variants.push(text) > MAX_VARIANTS) {
      throw new RangeError(`The command has more than ${MAX_VARIANTS} readings`);
    }
  };
  const read = (words: readonly string[], depth: number): void => {
    if (words.length === 0) return;
    const name = words[0].replace(/^.*\//, "");
    if (name !== words[0]) add([name, ...words.slice(1)].join(" "));
    if ((SHELLS.has(name) || name === "trap") && depth < MAX_NESTING) {
      // `trap SCRIPT SIGNAL…` runs its first argument (after `--`) as `eval` would.
      const trapAt = words[1] === "--" ? 2 : 1;
      const at = name === "eval" ? 0 : name === "trap" ? trapAt - 1 : words.indexOf("-c");
      const script = name === "eval" ? words.slice(1).join(" ") : words[at + 1];
      if (at !== -1 && script !== undefined) {
        try {
          let inner = parsed.get(script);
          if (inner === undefined) {
            parsed.set(script, []);
            parsed.set(script, inner = shellCommands(script));
          }
          for (const command of inner) {
            add(command.words.join(" "));
            read(command.words, depth + 1);
          }
        } catch (error) {
          // A script that does not parse does not run either; too many readings fail closed.
          if (error instanceof RangeError) throw error;
        }
      }
    }
    if (WRAPPERS.has(name) && depth < MAX_NESTING) {
      for (let from = 1; from < Math.min(words.length, 16); from++) {
        add(words.slice(from).join(" "));
        read(words.slice(from), depth + 1);
      }
    }
  };
  for (const command of commands) read(command.words, 0);
  return variants;
}

/**
 * Every simple command of a bash script, at any depth: in lists and pipelines, and inside
 * keywords (`if`, `for`, `case` …), subshells, groups, function bodies, command and process
 * substitutions (here-documents with an unquoted delimiter included), parameter expansions and
 * arithmetic. A command is plain only at the top: in a list (`;`, `&&`, `||`, `&`, newlines) or a
 * pipeline (`|`, `|&`) without `!` or `time`, with a literal program name, no assignment, only
 * literal (or file-name globbing) arguments and no redirection but descriptor duplication
 * (`2>&1`). A keyword, subshell, group, function or test adds a command that is never plain,
 * named by its node type, so that no allow rule covers a script holding one.
 *
 * @returns The commands, in source order.
 */
export function shellCommands(script: string): ShellCommand[] {
  const commands: ShellCommand[] = [];
  const inside = (node: SyntaxNode): void => {
    if (node.type === "Script") assertParsed(node);
    else if (SUBSTITUTIONS.has(node.type) && (node as { script?: unknown }).script === undefined) {
      throw new SyntaxError("A substitution in the command does not parse");
    } else if (node.type === "Command") commands.push({ words: wordsOf(node), plain: false });
    else if (COMPOUND.has(node.type)) commands.push({ words: [node.type], plain: false });
    forEachChild(node, inside);
  };
  const top = (node: SyntaxNode): void => {
    switch (node.type) {
      case "Script":
        assertParsed(node);
        for (const statement of node.commands) top(statement);
        return;
      case "Statement":
        return top(node.command);
      case "AndOr":
        for (const command of node.commands) top(command);
        return;
      case "Pipeline":
        if (node.prefixes.length > 0) return inside(node);
        for (const command of node.commands) top(command);
        return;
      case "Command":
        commands.push({ words: wordsOf(node), plain: isPlain(node) });
        forEachChild(node, inside);
        return;
      default:
        return inside(node);
    }
  };
  top(parse(script));
  return commands;
}

const SUBSTITUTIONS: ReadonlySet<SyntaxNode["type"]> = new Set([
  "CommandExpansion",
  "ProcessSubstitution",
  "ArithmeticCommandExpansion",
]);
const COMPOUND: ReadonlySet<SyntaxNode["type"]> = new Set([
  "If",
  "For",
  "ArithmeticFor",
  "Select",
  "While",
  "Subshell",
  "BraceGroup",
  "Case",
  "TestCommand",
  "ArithmeticCommand",
  "Redirected",
  "Function",
  "Coproc",
  "Time",
  "Negation",
]);

function assertParsed(script: ParsedScript): void {
  const error = script.errors?.[0];
  if (error !== undefined) {
    throw new SyntaxError(`The command does not parse at ${error.pos}: ${error.message}`);
  }
}

/**
 * The program and its arguments after quote removal; assignments after the name as written.
 * Throws a `RangeError` (the policy fails closed) for a program name bash expands before it
 * runs it: braces (`{rm,-f,x}` runs `rm -f x`) or file-name globbing (`/bin/r?` runs `/bin/rm`).
 */
function wordsOf(command: Command): string[] {
  if (command.name !== undefined && hasGlob(command.name.parts)) {
    throw new RangeError(
      "The program name is expanded by the shell (braces or file-name globbing): rules cannot read which program runs",
    );
  }
  const words = command.name === undefined ? [] : [command.name.value];
  for (const item of command.suffix) {
    if (item.type === "Word") words.push(item.value);
    else if (item.type === "Assignment") words.push(item.text);
  }
  return words;
}

function isPlain(command: Command): boolean {
  const name = command.name;
  if (name === undefined || command.prefix.length > 0) return false;
  if (!isLiteral(name, false) || /^~|\s/.test(name.value) || name.value === "") return false;
  return command.suffix.every((item) =>
    item.type === "Word" ? isLiteral(item, true) : item.type !== "Assignment" && isDuplication(item)
  );
}

/** A word the shell passes as written: no parameter, command, arithmetic or process expansion. */
function isLiteral(word: Word, globs: boolean): boolean {
  const literal = (parts: readonly WordPart[] | undefined): boolean =>
    parts === undefined || parts.every((part) => {
      if (!LITERAL_PARTS.has(part.type) || (!globs && GLOB_PARTS.has(part.type))) return false;
      return !("parts" in part) || literal(part.parts as readonly WordPart[] | undefined);
    });
  return literal(word.parts);
}

function hasGlob(parts: readonly WordPart[] | undefined): boolean {
  return parts !== undefined && parts.some((part) =>
    GLOB_PARTS.has(part.type) ||
    ("parts" in part && hasGlob(part.parts as readonly WordPart[] | undefined))
  );
}

/** `2>&1`, `>&2`, `<&0`, `>&-`: a descriptor copied or closed, no file opened. */
function isDuplication(item: Redirection): boolean {
  if (item.type !== "Redirect" || (item.operator !== ">&" && item.operator !== "<&")) return false;
  if (item.descriptor !== undefined && item.descriptor.type !== "FileDescriptor") return false;
  const target = item.target;
  return target !== undefined && target.parts === undefined && /^(?:\d+|-)$/.test(target.value);
}

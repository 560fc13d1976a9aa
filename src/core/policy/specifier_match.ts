import type { RoutedTool } from "../tool_source.ts";
import { globToRegExp } from "./_glob.ts";
import type { PolicyRule, RuleSpecifier } from "./policy_rule.ts";

/**
 * What a bare specifier reads in one call: command texts, resolved paths or strings. `also` is
 * what deny and ask rules read besides (`variants` of commands). `coverable` is false when no
 * allow rule may cover the call (a command that is not plain, arguments that cannot be read);
 * `unreadable` makes deny and ask rules match.
 */
interface CallItems {
  kind: "command" | "path" | "value";
  items: string[];
  also?: readonly string[];
  searched?: boolean;
  coverable: boolean;
  unreadable?: boolean;
}

/** How deep specifiers look into an argument; deeper arguments cannot be read (fail closed). */
const MAX_DEPTH = 64;
/** How many strings specifiers read in one call; more cannot be read (fail closed). */
const MAX_LEAVES = 10_000;
const UNREADABLE: CallItems = { kind: "value", items: [], coverable: false, unreadable: true };
const pathGlobs = new WeakMap<RuleSpecifier, Map<string, { glob: string; pattern: RegExp }>>();

/**
 * One call as rule specifiers read it. Its arguments (a shell script, a patch) are read once, on
 * the first rule with a bare specifier, and only for this decision.
 */
export class SpecifierMatch {
  #tool: RoutedTool;
  #args: Record<string, unknown>;
  #workspace: string | undefined;
  #items?: CallItems;

  /**
   * @param args The call's arguments (a plain object).
   * @param workspace The workspace paths resolve against.
   */
  constructor(tool: RoutedTool, args: Record<string, unknown>, workspace?: string) {
    this.#tool = tool;
    this.#args = args;
    this.#workspace = workspace;
  }

  /**
   * Whether a deny or ask rule about the tool applies: one without specifier always does; for a
   * specifier, one command, path or string matching is enough, and arguments that cannot be read
   * match.
   */
  matches(rule: PolicyRule): boolean {
    const specifier = rule.specifier;
    if (specifier === undefined) return true;
    if (specifier.key !== undefined) {
      const leaves = keyLeaves(specifier, this.#args);
      return leaves === undefined || leaves.some((leaf) => specifier.valuePattern.test(leaf));
    }
    const call = this.#read();
    return call.unreadable === true || call.items.some((item) => this.#test(specifier, item)) ||
      (call.also?.some((item) => specifier.commandPattern.test(item)) ?? false);
  }

  /**
   * The allow rule that lets the call run: one without specifier, one whose `KEY=GLOB` matches
   * every string of that argument, or (for the bare form) rules that together cover every
   * command, path or string. A shell command that is not plain (`ShellCommand.plain`) is never
   * covered, and arguments that cannot be read never are.
   *
   * @param rules The allow rules about this tool, in order.
   * @returns The first rule that took part, or `undefined` when the call is not allowed.
   */
  allowingRule(rules: readonly PolicyRule[]): PolicyRule | undefined {
    const bare: PolicyRule[] = [];
    for (const rule of rules) {
      const specifier = rule.specifier;
      if (specifier === undefined) return rule;
      if (specifier.key === undefined) bare.push(rule);
      else if (keyCovers(specifier, this.#args)) return rule;
    }
    if (bare.length === 0) return undefined;
    const call = this.#read();
    if (!call.coverable || call.items.length === 0) return undefined;
    let first: PolicyRule | undefined;
    for (const item of call.items) {
      const rule = bare.find((rule) => this.#test(rule.specifier!, item, true));
      if (rule === undefined) return undefined;
      first ??= rule;
    }
    return first;
  }

  #test(specifier: RuleSpecifier, item: string, allow = false): boolean {
    const call = this.#read();
    if (call.kind === "command") return specifier.commandPattern.test(item);
    if (call.kind === "value") return specifier.valuePattern.test(item);
    const glob = pathGlob(specifier, this.#workspace);
    return glob.pattern.test(item) ||
      (!allow && call.searched === true && mayHold(glob.glob, item));
  }

  #read(): CallItems {
    return this.#items ??= readCall(this.#tool, this.#args, this.#workspace);
  }
}

function keyCovers(specifier: RuleSpecifier, args: Record<string, unknown>): boolean {
  const leaves = keyLeaves(specifier, args);
  return leaves !== undefined && leaves.length > 0 &&
    leaves.every((leaf) => specifier.valuePattern.test(leaf));
}

/** The strings of the argument `KEY=GLOB` names: none when absent, `undefined` when unreadable. */
function keyLeaves(specifier: RuleSpecifier, args: Record<string, unknown>): string[] | undefined {
  return Object.hasOwn(args, specifier.key!) ? argumentLeaves(args[specifier.key!], true) : [];
}

function readCall(
  tool: RoutedTool,
  args: Record<string, unknown>,
  workspace: string | undefined,
): CallItems {
  if (typeof tool.policySubjects === "function") {
    try {
      const subjects = tool.policySubjects(args);
      if (subjects.kind === "paths") {
        return {
          kind: "path",
          items: subjects.paths.flatMap((path) => pathForms(path, workspace)),
          searched: subjects.searched,
          coverable: true,
        };
      }
      const commands = subjects.commands;
      return {
        kind: "command",
        items: commands.map((command) => command.words.join(" ")),
        also: subjects.variants,
        coverable: commands.every((command) => command.plain),
      };
    } catch {
      // Arguments the tool's own parser cannot read: the rule fails closed.
      return UNREADABLE;
    }
  }
  // A host's own built-in tool that does not declare its paths or commands fails closed rather
  // than have its arguments read as text (what let `./src/a.ts` past `edit(src/**)`).
  if (tool.source === "builtin") return UNREADABLE;
  // The arguments' own names are not data; everything below them is.
  const items = argumentLeaves(Object.values(args), false);
  return items === undefined ? UNREADABLE : { kind: "value", items, coverable: true };
}

/**
 * A path resolved against the workspace, twice: a backslash is a separator on Windows and a
 * character elsewhere (a NUL stands for it, which no tool accepts in a path and `*` matches).
 * Deny and ask rules match either form; allow rules must cover both.
 */
function pathForms(path: string, workspace: string | undefined): string[] {
  return [
    resolveWorkspacePath(path, workspace),
    resolveWorkspacePath(path.replaceAll("\\", "\0"), workspace),
  ];
}

/** The specifier's glob made absolute and normalised the way paths are, and its pattern. */
function pathGlob(
  specifier: RuleSpecifier,
  workspace: string | undefined,
): { glob: string; pattern: RegExp } {
  let byWorkspace = pathGlobs.get(specifier);
  if (byWorkspace === undefined) pathGlobs.set(specifier, byWorkspace = new Map());
  const key = workspace ?? "";
  let compiled = byWorkspace.get(key);
  if (compiled === undefined) {
    const glob = resolveWorkspacePath(specifier.glob, workspace);
    compiled = { glob, pattern: globToRegExp(glob, "path") };
    byWorkspace.set(key, compiled);
  }
  return compiled;
}

/**
 * Whether a normalised path glob may match something inside a folder: the folder's components
 * match the glob's leading segments, and the glob goes deeper or reaches a `**`.
 */
function mayHold(glob: string, folder: string): boolean {
  const segments = glob.split("/").filter(Boolean);
  const parts = folder.split("/").filter(Boolean);
  for (const [at, part] of parts.entries()) {
    const segment = segments[at];
    if (segment === undefined) return false;
    if (segment.includes("**")) return true;
    if (!globToRegExp(segment, "path").test(part)) return false;
  }
  return segments.length > parts.length;
}

/**
 * The strings of a value at any depth (array elements, object keys and property values), for
 * value specifiers, in document order; with `scalars`, numbers, booleans and `null` too, as text.
 * `undefined` when the value is nested deeper or holds more than specifiers read (fail closed).
 */
function argumentLeaves(value: unknown, scalars: boolean): string[] | undefined {
  const leaves: string[] = [];
  const walk = (node: unknown, depth: number): boolean => {
    if (typeof node === "string") leaves.push(node);
    else if (node !== null && typeof node === "object") {
      if (depth >= MAX_DEPTH) return false;
      // An object's keys are data too (a record of addresses, of headers): [key, value, …].
      for (const child of Array.isArray(node) ? node : Object.entries(node).flat()) {
        if (!walk(child, depth + 1)) return false;
      }
    } else if (scalars && node !== undefined) leaves.push(String(node));
    return leaves.length <= MAX_LEAVES;
  };
  return walk(value, 0) ? leaves : undefined;
}

/**
 * Resolves a path against a workspace lexically (no file system): `.` and `..` removed, POSIX
 * separators. A relative path without a workspace stays relative to an imaginary root `/`. Path
 * globs are made absolute the same way (their wildcards stay).
 */
function resolveWorkspacePath(path: string, workspace: string | undefined): string {
  const slashed = path.replaceAll("\\", "/");
  const joined = slashed.startsWith("/") ? slashed : `${workspace ?? ""}/${slashed}`;
  const parts: string[] = [];
  for (const part of joined.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return "/" + parts.join("/");
}

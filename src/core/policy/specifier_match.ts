import type { RoutedTool, ShellCommand } from "../tool_source.ts";
import { argumentLeaves } from "./_argument_leaves.ts";
import { globToRegExp } from "./_glob.ts";
import { resolveWorkspacePath } from "./_workspace_path.ts";
import { type PolicyRule, type RuleSpecifier, squeeze } from "./policy_rule.ts";

/**
 * Built-in tools whose specifiers read paths or commands. Without a `policySubjects`
 * declaration (a host's own built-in source) their specifiers fail closed rather than fall back
 * to reading the text of the arguments, which is what let `./src/a.ts` past `edit(src/**)`.
 */
const PATH_OR_COMMAND_BUILTINS: ReadonlySet<string> = new Set([
  "apply_patch",
  "bash",
  "edit",
  "glob",
  "grep",
  "read_file",
  "write_file",
]);

/** What a bare specifier reads in one call. */
type CallItems =
  | { kind: "path"; paths: string[]; searched: boolean }
  | { kind: "command"; commands: readonly ShellCommand[]; text: string }
  | { kind: "value"; values: string[] }
  | { kind: "unreadable" };

const UNREADABLE: CallItems = { kind: "unreadable" };
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
   * @param tool The tool called.
   * @param args The call's arguments (a plain object).
   * @param workspace The workspace paths resolve against.
   */
  constructor(tool: RoutedTool, args: Record<string, unknown>, workspace?: string) {
    this.#tool = tool;
    this.#args = args;
    this.#workspace = workspace;
  }

  /**
   * Whether a deny or ask rule's specifier matches: one command, path or string matching is
   * enough, and arguments that cannot be read match.
   *
   * @param specifier The rule's specifier.
   * @returns `true` when the rule applies to this call.
   */
  matches(specifier: RuleSpecifier): boolean {
    if (specifier.key !== undefined) {
      if (!Object.hasOwn(this.#args, specifier.key)) return false;
      const leaves = argumentLeaves(this.#args[specifier.key], { scalars: true });
      return leaves === undefined || leaves.some((leaf) => specifier.valuePattern.test(leaf));
    }
    const call = this.#read();
    const workspace = this.#workspace;
    switch (call.kind) {
      case "unreadable":
        return true;
      case "command":
        return call.commands.some((command) =>
          specifier.commandPattern.test(command.words.join(" "))
        ) || specifier.commandPattern.test(squeeze(call.text));
      case "path":
        return call.paths.flatMap((path) => pathForms(path, workspace)).some((resolved) => {
          const glob = pathGlob(specifier, workspace);
          return glob.pattern.test(resolved) ||
            (call.searched && mayHoldMatches(glob.glob, resolved));
        });
      case "value":
        return call.values.some((value) => specifier.valuePattern.test(value));
    }
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
    const workspace = this.#workspace;
    let items: string[];
    let covers: (specifier: RuleSpecifier, item: string) => boolean;
    switch (call.kind) {
      case "unreadable":
        return undefined;
      case "command":
        if (!call.commands.every((command) => command.plain)) return undefined;
        items = call.commands.map((command) => command.words.join(" "));
        covers = (specifier, item) => specifier.commandPattern.test(item);
        break;
      case "path":
        items = call.paths.flatMap((path) => pathForms(path, workspace));
        covers = (specifier, item) => pathGlob(specifier, workspace).pattern.test(item);
        break;
      case "value":
        items = call.values;
        covers = (specifier, item) => specifier.valuePattern.test(item);
    }
    if (items.length === 0) return undefined;
    let first: PolicyRule | undefined;
    for (const item of items) {
      const rule = bare.find((rule) => covers(rule.specifier!, item));
      if (rule === undefined) return undefined;
      first ??= rule;
    }
    return first;
  }

  #read(): CallItems {
    return this.#items ??= readCall(this.#tool, this.#args);
  }
}

function keyCovers(specifier: RuleSpecifier, args: Record<string, unknown>): boolean {
  if (!Object.hasOwn(args, specifier.key!)) return false;
  const leaves = argumentLeaves(args[specifier.key!], { scalars: true });
  return leaves !== undefined && leaves.length > 0 &&
    leaves.every((leaf) => specifier.valuePattern.test(leaf));
}

function readCall(tool: RoutedTool, args: Record<string, unknown>): CallItems {
  if (typeof tool.policySubjects === "function") {
    try {
      const subjects = tool.policySubjects(args);
      if (subjects.kind === "paths") {
        return { kind: "path", paths: [...subjects.paths], searched: subjects.searched === true };
      }
      if (subjects.kind === "commands") {
        return { kind: "command", commands: [...subjects.commands], text: subjects.text };
      }
    } catch {
      // Arguments the tool's own parser cannot read: the rule fails closed below.
    }
    return UNREADABLE;
  }
  if (tool.source === "builtin" && PATH_OR_COMMAND_BUILTINS.has(tool.name)) return UNREADABLE;
  const values = argumentLeaves(args, { scalars: false });
  return values === undefined ? UNREADABLE : { kind: "value", values };
}

/**
 * A path resolved against the workspace; a backslash is a separator on Windows and a character
 * elsewhere, so a path holding one has both forms (deny: either matches; allow: both covered).
 */
function pathForms(path: string, workspace: string | undefined): string[] {
  const separated = resolveWorkspacePath(path.replaceAll("\\", "/"), workspace);
  if (!path.includes("\\")) return [separated];
  return [separated, resolveWorkspacePath(path, workspace, { backslash: "literal" })];
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
    const glob = specifier.glob.replaceAll("\\", "/");
    const absolute = glob.startsWith("/") ? glob : `${workspace ?? ""}/${glob}`;
    // Normalise the literal part the way paths are, keeping the wildcards.
    const normal = absolute.split("/").reduce<string[]>((parts, part) => {
      if (part === "" || part === ".") return parts;
      if (part === "..") parts.pop();
      else parts.push(part);
      return parts;
    }, []);
    const text = "/" + normal.join("/");
    compiled = { glob: text, pattern: globToRegExp(text, "path") };
    byWorkspace.set(key, compiled);
  }
  return compiled;
}

/**
 * Whether a normalised path glob may match something inside a folder: the folder's components
 * match the glob's leading segments, and the glob goes deeper or reaches a `**`.
 */
function mayHoldMatches(glob: string, folder: string): boolean {
  const segments = glob.split("/").slice(1);
  const parts = folder === "/" ? [] : folder.split("/").slice(1);
  for (const [at, part] of parts.entries()) {
    const segment = segments[at];
    if (segment === undefined) return false;
    if (segment.includes("**")) return true;
    if (!globToRegExp(segment, "path").test(part)) return false;
  }
  return segments.length > parts.length;
}

import type { RoutedTool } from "../tool_source.ts";
import { globToRegExp } from "./_glob.ts";
import { patchPaths, resolveWorkspacePath } from "./_workspace_path.ts";
import { type PolicyRule, type RuleSpecifier, squeeze } from "./policy_rule.ts";

const SUBSTITUTION = /\$\(|`|<\(|>\(/;
const SEPARATORS = /\|\||&&|[;|&\n]/;
const LEADING = /^(?:[({!]\s*|[A-Za-z_][A-Za-z0-9_]*=(?:'[^']*'|"[^"]*"|\S*)\s+)+/;
const pathPatterns = new WeakMap<RuleSpecifier, Map<string, RegExp>>();

/** What a bare specifier is matched against: the command parts, paths or string arguments. */
interface CallItems {
  kind: "command" | "path" | "value";
  items: string[];
  /** The whole command, also checked by deny and ask rules. */
  whole?: string;
  /** Whether no allow rule may match (command substitution). */
  opaque?: boolean;
}

/**
 * Whether a rule's specifier matches a call's arguments: for deny and ask (`any`), one command
 * part, path or string argument matching is enough.
 *
 * @param specifier The rule's specifier.
 * @param tool The tool called.
 * @param args The call's arguments (a plain object).
 * @param workspace The workspace paths resolve against.
 * @returns `true` when the rule applies to this call.
 */
export function specifierMatches(
  specifier: RuleSpecifier,
  tool: RoutedTool,
  args: Record<string, unknown>,
  workspace: string | undefined,
): boolean {
  if (specifier.key !== undefined) return keyMatches(specifier, args);
  const call = callItems(tool, args, workspace);
  const test = (item: string) => itemMatches(specifier, call.kind, item, workspace);
  return call.items.some(test) || (call.whole !== undefined && test(call.whole));
}

/**
 * The allow rule that lets a call run: one without specifier, one whose `KEY=GLOB` matches, or
 * (for the bare form) rules that together cover every command part, path or string argument.
 *
 * @param rules The allow rules about this tool, in order.
 * @param tool The tool.
 * @param args The call's arguments.
 * @param workspace The workspace paths resolve against.
 * @returns The first rule that took part, or `undefined` when the call is not allowed.
 */
export function allowingRule(
  rules: readonly PolicyRule[],
  tool: RoutedTool,
  args: Record<string, unknown>,
  workspace: string | undefined,
): PolicyRule | undefined {
  const bare: PolicyRule[] = [];
  for (const rule of rules) {
    const specifier = rule.specifier;
    if (specifier === undefined) return rule;
    if (specifier.key === undefined) bare.push(rule);
    else if (keyMatches(specifier, args)) return rule;
  }
  if (bare.length === 0) return undefined;
  const call = callItems(tool, args, workspace);
  if (call.opaque || call.items.length === 0) return undefined;
  let first: PolicyRule | undefined;
  for (const item of call.items) {
    const rule = bare.find((rule) => itemMatches(rule.specifier!, call.kind, item, workspace));
    if (rule === undefined) return undefined;
    first ??= rule;
  }
  return first;
}

function keyMatches(specifier: RuleSpecifier, args: Record<string, unknown>): boolean {
  if (!Object.hasOwn(args, specifier.key!)) return false;
  const value = args[specifier.key!];
  return specifier.valuePattern.test(typeof value === "string" ? value : JSON.stringify(value));
}

function callItems(
  tool: RoutedTool,
  args: Record<string, unknown>,
  workspace: string | undefined,
): CallItems {
  const builtin = tool.source === "builtin";
  if (builtin && tool.name === "bash") {
    const command = args.command;
    if (typeof command !== "string") return { kind: "command", items: [] };
    return {
      kind: "command",
      items: commandParts(command),
      whole: squeeze(command),
      opaque: SUBSTITUTION.test(command),
    };
  }
  if (builtin && (tool.name === "read_file" || tool.name === "write_file")) {
    const path = args.path;
    return {
      kind: "path",
      items: typeof path === "string" ? [resolveWorkspacePath(path, workspace)] : [],
    };
  }
  if (builtin && tool.name === "apply_patch") {
    const patch = typeof args.patch === "string" ? args.patch : "";
    return {
      kind: "path",
      items: patchPaths(patch).map((path) => resolveWorkspacePath(path, workspace)),
    };
  }
  return {
    kind: "value",
    items: Object.values(args).filter((value) => typeof value === "string") as string[],
  };
}

function itemMatches(
  specifier: RuleSpecifier,
  kind: CallItems["kind"],
  item: string,
  workspace: string | undefined,
): boolean {
  if (kind === "command") return specifier.commandPattern.test(item);
  if (kind === "path") return pathPattern(specifier, workspace).test(item);
  return specifier.valuePattern.test(item);
}

/**
 * Splits a shell command at `;`, `&&`, `||`, `|`, `&` and newlines (quotes are not honoured,
 * which only ever splits more), and drops leading `(`, `{`, `!` and variable assignments.
 *
 * @param command The command.
 * @returns The non-empty parts, whitespace collapsed.
 */
export function commandParts(command: string): string[] {
  return command.split(SEPARATORS).map((part) => squeeze(squeeze(part).replace(LEADING, "")))
    .filter((part) => part !== "");
}

function pathPattern(specifier: RuleSpecifier, workspace: string | undefined): RegExp {
  let byWorkspace = pathPatterns.get(specifier);
  if (byWorkspace === undefined) pathPatterns.set(specifier, byWorkspace = new Map());
  const key = workspace ?? "";
  let pattern = byWorkspace.get(key);
  if (pattern === undefined) {
    const glob = specifier.glob.replaceAll("\\", "/");
    const absolute = glob.startsWith("/") ? glob : `${workspace ?? ""}/${glob}`;
    // Normalise the literal part the way paths are, keeping the wildcards.
    const normal = absolute.split("/").reduce<string[]>((parts, part) => {
      if (part === "" || part === ".") return parts;
      if (part === "..") parts.pop();
      else parts.push(part);
      return parts;
    }, []);
    pattern = globToRegExp("/" + normal.join("/"), "path");
    byWorkspace.set(key, pattern);
  }
  return pattern;
}

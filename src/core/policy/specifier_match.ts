import type { RoutedTool } from "../tool_source.ts";
import { globToRegExp } from "./_glob.ts";
import { patchPaths, resolveWorkspacePath } from "./_workspace_path.ts";
import { type RuleSpecifier, squeeze } from "./policy_rule.ts";

/** `any`: one command part or path matching is enough (deny, ask); `all`: every one must (allow). */
export type MatchMode = "any" | "all";

const SUBSTITUTION = /\$\(|`|<\(|>\(/;
const SEPARATORS = /\|\||&&|[;|&\n]/;
const LEADING = /^(?:[({!]\s*|[A-Za-z_][A-Za-z0-9_]*=(?:'[^']*'|"[^"]*"|\S*)\s+)+/;
const pathPatterns = new WeakMap<RuleSpecifier, Map<string, RegExp>>();

/**
 * Whether a rule's specifier matches a call's arguments.
 *
 * @param specifier The rule's specifier.
 * @param tool The tool called.
 * @param args The call's arguments (a plain object).
 * @param options The workspace paths resolve against, and the match mode.
 * @returns `true` when the rule applies to this call.
 */
export function specifierMatches(
  specifier: RuleSpecifier,
  tool: RoutedTool,
  args: Record<string, unknown>,
  options: { workspace?: string; mode: MatchMode },
): boolean {
  const { mode } = options;
  if (specifier.key !== undefined) {
    if (!Object.hasOwn(args, specifier.key)) return false;
    const value = args[specifier.key];
    return specifier.valuePattern.test(typeof value === "string" ? value : JSON.stringify(value));
  }
  const builtin = tool.source === "builtin";
  if (builtin && tool.name === "bash") {
    const command = args.command;
    if (typeof command !== "string") return false;
    if (mode === "all" && SUBSTITUTION.test(command)) return false;
    const parts = commandParts(command);
    const test = (part: string) => specifier.commandPattern.test(part);
    return mode === "all" ? parts.every(test) : parts.some(test) || test(squeeze(command));
  }
  if (builtin && (tool.name === "read_file" || tool.name === "write_file")) {
    const path = args.path;
    return typeof path === "string" && pathPattern(specifier, options.workspace).test(
      resolveWorkspacePath(path, options.workspace),
    );
  }
  if (builtin && tool.name === "apply_patch") {
    if (typeof args.patch !== "string") return false;
    const paths = patchPaths(args.patch).map((path) =>
      resolveWorkspacePath(path, options.workspace)
    );
    if (paths.length === 0) return false;
    const pattern = pathPattern(specifier, options.workspace);
    return mode === "all"
      ? paths.every((p) => pattern.test(p))
      : paths.some((p) => pattern.test(p));
  }
  const strings = Object.values(args).filter((value) => typeof value === "string") as string[];
  if (strings.length === 0) return false;
  const test = (value: string) => specifier.valuePattern.test(value);
  return mode === "all" ? strings.every(test) : strings.some(test);
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

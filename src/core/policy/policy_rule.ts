import { type RoutedTool, SOURCE_PRIORITY, type SourceKind } from "../tool_source.ts";
import { globToRegExp } from "./_glob.ts";
import type { PolicyAction } from "../policy_types.ts";

/** Whose policy a rule belongs to: the router's or one request's. */
export type PolicyScope = "router" | "request";

/** The argument part of a rule. */
export interface RuleSpecifier {
  readonly text: string;
  /** The argument it reads, in the `KEY=GLOB` form. */
  readonly key?: string;
  readonly glob: string;
  /** The glob over text (`*` crosses everything). */
  readonly valuePattern: RegExp;
  /** The glob over a `bash` command part (`:*` means "this command, any arguments"). */
  readonly commandPattern: RegExp;
}

/** One parsed rule of a policy. */
export interface PolicyRule {
  /** The rule as written (trimmed). */
  readonly text: string;
  /** The list it came from. */
  readonly action: PolicyAction;
  /** What `NAME` is: a glob over exposed names, a source, or a server. */
  readonly kind: "name" | "source" | "server";
  /** The glob over exposed names (`name`), or over the server id (`server`). */
  readonly pattern?: RegExp;
  /** The glob over the server's own tool name (`server:ID/TOOL`). */
  readonly serverTool?: RegExp;
  /** The source (`source:KIND`). */
  readonly source?: SourceKind;
  /** The argument matcher, when the rule has one. */
  readonly specifier?: RuleSpecifier;
}

const NAME_GLOB = /^[A-Za-z0-9_*?-]+$/;
const SERVER = /^([^\s/()]+)(?:\/([^\s()]+))?$/;
const KEY = /^([A-Za-z_][A-Za-z0-9_-]*)=([\s\S]*)$/;
const MCP_SOURCES: readonly SourceKind[] = ["user_mcp", "local_mcp", "global_mcp"];

/**
 * Parses one rule; throws a `TypeError` naming it when it is malformed.
 *
 * @param value The rule as written in the policy.
 */
export function parseRule(value: unknown, action: PolicyAction): PolicyRule {
  if (typeof value !== "string") {
    throw new TypeError(
      `Invalid policy rule ${
        JSON.stringify(value) ?? String(value)
      } in "${action}": rules are strings such as "bash(git status*)"`,
    );
  }
  const text = value.trim();
  const open = text.indexOf("(");
  const name = open === -1 ? text : text.slice(0, open).trim();
  let inner: string | undefined;
  if (open !== -1) {
    if (!text.endsWith(")") || text.length - 1 <= open) throw malformed(value, action);
    inner = text.slice(open + 1, -1).trim();
    if (inner === "") throw malformed(value, action, "the specifier in parentheses is empty");
  }
  const specifier = inner === undefined ? undefined : parseSpecifier(inner);
  if (name.startsWith("source:")) {
    const source = name.slice("source:".length) as SourceKind;
    if (!SOURCE_PRIORITY.includes(source)) {
      throw malformed(value, action, `sources are ${SOURCE_PRIORITY.join(", ")}`);
    }
    return { text, action, kind: "source", source, specifier };
  }
  if (name.startsWith("server:")) {
    const match = SERVER.exec(name.slice("server:".length));
    if (match === null) throw malformed(value, action, 'write "server:ID" or "server:ID/TOOL"');
    return {
      text,
      action,
      kind: "server",
      pattern: globToRegExp(match[1], "text"),
      serverTool: match[2] === undefined ? undefined : globToRegExp(match[2], "text"),
      specifier,
    };
  }
  if (!NAME_GLOB.test(name)) throw malformed(value, action);
  return { text, action, kind: "name", pattern: globToRegExp(name, "text"), specifier };
}

/**
 * Whether a rule's `NAME` part matches a tool (the specifier is not looked at).
 *
 * @returns `true` when the rule is about this tool.
 */
export function ruleNamesTool(rule: PolicyRule, tool: RoutedTool): boolean {
  if (rule.kind === "name") {
    if (rule.pattern!.test(tool.name)) return true;
    // Another server decides whether a tool keeps its name: one listing the same name qualifies
    // both (`mail_send_email`), a look-alike of a higher source renames it. A deny or ask rule (a
    // limit, a neverSticky rule) also names the tool by its own name, so no server can rename a
    // tool out of it; an allow rule names exposed names only, so a renamed tool is not let in.
    if (rule.action === "allow") return false;
    const own = ownName(tool);
    return own !== tool.name && rule.pattern!.test(own);
  }
  if (rule.kind === "source") return rule.source === tool.source;
  if (!MCP_SOURCES.includes(tool.source)) return false;
  const slash = tool.origin.indexOf("/");
  if (slash === -1) return false;
  if (!rule.pattern!.test(tool.origin.slice(0, slash))) return false;
  return rule.serverTool === undefined || rule.serverTool.test(tool.origin.slice(slash + 1));
}

/** A tool's name before any renaming: its server's or service's own name, or a function's. */
function ownName(tool: RoutedTool): string {
  if (tool.source === "function") return tool.origin;
  if (!MCP_SOURCES.includes(tool.source)) return tool.name;
  const slash = tool.origin.indexOf("/");
  return slash === -1 ? tool.name : tool.origin.slice(slash + 1);
}

function parseSpecifier(text: string): RuleSpecifier {
  const keyed = KEY.exec(text);
  const glob = keyed ? keyed[2] : text;
  const command = glob.endsWith(":*")
    ? new RegExp(`^${escape(squeeze(glob.slice(0, -2)))}(?: [\\s\\S]*)?$`)
    : globToRegExp(squeeze(glob), "text");
  return {
    text,
    key: keyed?.[1],
    glob,
    valuePattern: globToRegExp(glob, "text"),
    commandPattern: command,
  };
}

/** Collapses runs of whitespace, as command parts are before matching. */
export function squeeze(text: string): string {
  return text.trim().replace(/\s+/g, " ");
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\\/-]/g, "\\$&");
}

function malformed(value: string, action: PolicyAction, hint?: string): TypeError {
  return new TypeError(
    `Invalid policy rule ${JSON.stringify(value)} in "${action}": ${
      hint ?? 'write NAME or NAME(SPECIFIER), such as "bash(git status*)" or "delete_*"'
    }`,
  );
}

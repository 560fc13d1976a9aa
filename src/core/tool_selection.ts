import { qualifiedLookAlikeName } from "./look_alike_names.ts";
import type { ToolRegistry } from "./tool_registry.ts";
import type { DeferSetting, ShadowedTool } from "./tool_set.ts";
import { SEARCH_TOOLS_NAME } from "./search_tools_tool.ts";
import {
  type BuiltinContext,
  type BuiltinSource,
  type GatewaySource,
  type MissingTool,
  type RoutedTool,
  type SelectionKey,
  SOURCE_PRIORITY,
  type SourceKind,
} from "./tool_source.ts";
import type { Policy } from "./policy_types.ts";
import type { ToolHook } from "./hooks/tool_hook.ts";

/** What one request may use: only what is named here is exposed. */
export interface ToolSelection {
  /** Function tool names. */
  functions?: readonly string[];
  /** Local MCP service names (every tool of each). */
  mcpServices?: readonly string[];
  /** Remote MCP server ids: the user's own servers and global servers. */
  mcpServers?: readonly string[];
  /** Built-in tool names: `bash`, `read_file`, `write_file`, `apply_patch`. */
  builtins?: readonly string[];
  /** The request's user: selects per-user servers, and reaches tools as `context.userId`. */
  userId?: string;
  /** The built-in context of this request, overriding the router's. */
  context?: BuiltinContext;
  /** Aborts connecting to remote servers. */
  signal?: AbortSignal;
  /** This request's policy; it applies together with the router's (the stricter wins). */
  policy?: Policy;
  /**
   * Deferred exposure: `true` or `{ keep: ["name", ...] }` lists only the kept tools and a
   * `search_tools` tool that finds and loads the others (only those this request may use).
   * The name `search_tools` is then the router's: a selected tool of that name (ignoring case)
   * is exposed under its qualified name (`github_search_tools`) and reported in `shadowed`.
   * See docs/context_economy.md.
   */
  defer?: DeferSetting;
  /**
   * The host's id of the conversation: results a budget cut in one tool set of this user and
   * session can be read (`read_result`) from later sets of the same user and session. Without
   * it, only the set that cut a result reads it.
   */
  session?: string;
  /** Hooks around this request's calls, after the router's (see `ToolHook`). */
  hooks?: readonly ToolHook[];
}

/** The tools of a selection after priority is applied. */
export interface ResolvedSelection {
  /** One tool per name, the winners. */
  tools: RoutedTool[];
  /** Names that lost to a higher source. */
  shadowed: ShadowedTool[];
  /** Names that could not be exposed. */
  missing: MissingTool[];
}

/**
 * Resolves a selection against the registry and the slots, applying source priority.
 *
 * Throws a `TypeError` when the selection is not well formed (host misuse).
 *
 * @param sources Function tools and local services (`registry`), the built-in slot, the remote
 *   MCP slot, and a name to `reserve` for the router's own tool.
 * @returns The winners, the shadowed names and the missing names.
 */
export async function resolveSelection(
  selection: ToolSelection,
  sources: {
    registry: ToolRegistry;
    builtins?: BuiltinSource;
    gateway?: GatewaySource;
    reserve?: string;
  },
): Promise<ResolvedSelection> {
  const { registry, builtins, gateway } = sources;
  checkSelection(selection);
  const missing: MissingTool[] = [];
  const absent = (key: SelectionKey, name: string, reason: string) =>
    missing.push({ selection: key, name, reason });
  const tiers: Record<SourceKind, RoutedTool[]> = {
    builtin: [],
    user_mcp: [],
    local_mcp: [],
    function: [],
    global_mcp: [],
  };
  const builtinNames = unique(selection.builtins);
  if (builtinNames.length > 0) {
    if (builtins === undefined) {
      for (const name of builtinNames) absent("builtins", name, "no built-in tools are registered");
    } else {
      const found = builtins.resolve(builtinNames, selection.context, {
        userId: selection.userId,
      });
      tiers.builtin = found.tools;
      missing.push(...found.missing);
    }
  }
  const serverIds = unique(selection.mcpServers);
  if (serverIds.length > 0) {
    if (gateway === undefined) {
      for (const name of serverIds) absent("mcpServers", name, "no MCP gateway is registered");
    } else {
      const found = await gateway.resolve({
        serverIds,
        userId: selection.userId,
        signal: selection.signal,
      });
      tiers.user_mcp = found.user;
      tiers.global_mcp = found.global;
      missing.push(...found.missing);
    }
  }
  for (const name of unique(selection.mcpServices)) {
    const service = registry.getService(name);
    if (service === undefined) absent("mcpServices", name, "no local MCP service has this name");
    else tiers.local_mcp.push(...service.tools);
  }
  for (const name of unique(selection.functions)) {
    const tool = registry.getFunction(name);
    if (tool === undefined) absent("functions", name, "no function tool has this name");
    else tiers.function.push(tool);
  }
  const deferred = selection.defer !== undefined && selection.defer !== false;
  const reserved = deferred ? [SEARCH_TOOLS_NAME] : [];
  if (sources.reserve !== undefined) reserved.push(sources.reserve);
  return merge(tiers, missing, reserved);
}

function merge(
  tiers: Record<SourceKind, RoutedTool[]>,
  missing: MissingTool[],
  reserved: readonly string[],
): ResolvedSelection {
  const winners = new Map<string, RoutedTool>();
  const shadowed = new Map<string, ShadowedTool>();
  // Names equal ignoring case are a collision too: the lower one is qualified (look-alikes).
  const folded = new Map<string, RoutedTool>();
  const taken = new Set(SOURCE_PRIORITY.flatMap((s) => tiers[s].map((t) => t.name.toLowerCase())));
  for (const name of reserved) taken.add(name);
  for (const source of SOURCE_PRIORITY) {
    for (const tool of tiers[source]) {
      const winner = winners.get(tool.name);
      if (winner !== undefined && !reserved.includes(tool.name.toLowerCase())) {
        const entry = shadowed.get(tool.name);
        if (entry === undefined) {
          shadowed.set(tool.name, { name: tool.name, winner: winner.source, hidden: [source] });
        } else entry.hidden.push(source);
        continue;
      }
      // A remote `search_tools` or `read_result` must not stand in for the router's: it keeps
      // working under a qualified name, and a search may return it like any other tool.
      const owner = reserved.includes(tool.name.toLowerCase())
        ? "router"
        : folded.get(tool.name.toLowerCase())?.source;
      if (owner === undefined) {
        winners.set(tool.name, tool);
        folded.set(tool.name.toLowerCase(), tool);
        continue;
      }
      const exposedAs = qualifiedLookAlikeName(tool, taken);
      taken.add(exposedAs.toLowerCase());
      const renamed: RoutedTool = Object.freeze({ ...tool, name: exposedAs });
      winners.set(exposedAs, renamed);
      folded.set(exposedAs.toLowerCase(), renamed);
      shadowed.set(`${tool.name}\u0000${source}`, {
        name: tool.name,
        winner: owner,
        hidden: [source],
        exposedAs,
      });
    }
  }
  return { tools: [...winners.values()], shadowed: [...shadowed.values()], missing };
}

function unique(names: readonly string[] | undefined): string[] {
  if (names === undefined || names.length === 0) return [];
  return names.length === 1 ? [names[0]] : [...new Set(names)];
}

function checkSelection(selection: ToolSelection): void {
  if (selection === null || typeof selection !== "object") {
    throw new TypeError(
      'Cannot expose tools: the selection must be an object such as { functions: ["name"] }',
    );
  }
  for (const key of ["functions", "mcpServices", "mcpServers", "builtins"] as const) {
    const names = selection[key];
    if (names === undefined) continue;
    if (!Array.isArray(names) || names.some((name) => typeof name !== "string")) {
      throw new TypeError(
        `Cannot expose tools: "${key}" must be an array of names, received ${
          JSON.stringify(names)
        }`,
      );
    }
  }
  for (const key of ["userId", "session"] as const) {
    const value = selection[key];
    if (value !== undefined && (typeof value !== "string" || value === "")) {
      throw new TypeError(
        `Cannot expose tools: "${key}" must be a non-empty string, received ${
          JSON.stringify(value)
        }`,
      );
    }
  }
}

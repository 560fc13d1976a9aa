import { ToolError } from "../../../tool_error.ts";
import type { ToolOutput } from "../../../tool_output.ts";
import type {
  JsonObjectSchema,
  MissingTool,
  RoutedTool,
  ToolContext,
  UpstreamMethod,
  UpstreamServer,
} from "../../../tool_source.ts";
import { upstreamInputSchema } from "../../../strict_schema.ts";
import { assignRemoteToolNames, type ServerToolNames } from "./remote_tool_names.ts";
import { escapedContext, escapedResult } from "./remote_text.ts";
import {
  guardRemoteTools,
  REMOTE_TEXT_DEFAULTS,
  type RemoteTextLimits,
} from "./remote_tool_guard.ts";
import type { ServerConnection } from "../connection/server_connection.ts";
import { hostReadOnly, type McpServerConfig } from "../../mcp_server_config.ts";

/** What a remote tool's call needs of its connection. */
export interface RemoteCallee {
  /** Calls the tool by its name on the server. */
  callTool(
    toolName: string,
    args: Record<string, unknown>,
    context: ToolContext,
  ): Promise<ToolOutput>;
  /** Sends a resources, prompts or completion request to the server, when it can. */
  request?(
    method: UpstreamMethod,
    params: Record<string, unknown>,
    context: { signal: AbortSignal; userId?: string },
  ): Promise<Record<string, unknown>>;
}

/**
 * Where a tier's tools find their connection at call time (looked up on every call, so a removed
 * server fails cleanly and a replaced connection is used).
 */
export interface ConnectionLookup {
  /** For a user's servers: the user; a call from another user is refused. */
  readonly userId?: string;
  /** The server's connection now, or `undefined` when the server was removed. */
  connection(serverId: string): RemoteCallee | undefined;
}

/** Most tool lists kept; the oldest is dropped first. */
const CACHE_SIZE = 256;

/**
 * Builds the `RoutedTool`s of one tier's selected, connected servers, named by
 * `assignRemoteToolNames` over every configured server of the tier (with its last known tool
 * list, see `KnownToolNames`), and caches them until a tool list or connection changes. A server
 * going down or coming back never renames another server's tool.
 */
export class RemoteRoutedTools {
  #cache = new Map<
    string,
    { tools: RoutedTool[]; refused: MissingTool[]; absent: Map<string, string[]> }
  >();
  #limits: RemoteTextLimits;

  /**
   * @param limits Caps on remote descriptions and on each server's tool list.
   */
  constructor(limits: RemoteTextLimits = REMOTE_TEXT_DEFAULTS) {
    this.#limits = limits;
  }

  /**
   * Returns the tools of the given servers of one tier.
   *
   * @param source `user_mcp` or `global_mcp`.
   * @param servers The connected servers, in selection order.
   * @param lookup Finds a tool's connection at call time.
   * @param cacheKey Identifies the executor (the tier and user).
   * @param known Every configured server of the tier with its last known tool names, in
   *   configuration order, with a version that changes with them; default: the given servers.
   * @param refused Receives the tools refused or dropped by `guardRemoteTools` (for `missing`).
   * @returns The tools: names, descriptions and results with control and bidi characters
   *   escaped, descriptions capped.
   */
  build(
    source: "user_mcp" | "global_mcp",
    servers: readonly {
      id: string;
      connection: Pick<ServerConnection, "serial" | "version" | "tools"> & {
        config?: McpServerConfig;
      };
    }[],
    lookup: ConnectionLookup,
    cacheKey: string,
    known?: { lists: readonly ServerToolNames[]; version: number },
    refused?: MissingTool[],
  ): RoutedTool[] {
    let key = known === undefined ? cacheKey : `${cacheKey}\u0002${known.version}`;
    for (const { id, connection } of servers) {
      key += `\u0000${id}\u0001${connection.serial}.${connection.version}`;
    }
    const cached = this.#cache.get(key);
    if (cached !== undefined) {
      refused?.push(...cached.refused);
      if (refused !== undefined) nameAbsent(refused, cached.absent);
      return cached.tools;
    }
    const guarded = servers.map(({ id, connection }) => ({
      id,
      ...guardRemoteTools(id, connection.tools, { limits: this.#limits }),
    }));
    const byServer = new Map(guarded.map(({ id, tools }) => [id, tools]));
    const configs = new Map(servers.map(({ id, connection }) => [id, connection.config]));
    const current = guarded.map(({ id, tools }) => ({
      serverId: id,
      toolNames: tools.map((tool) => tool.name),
    }));
    const names = assignRemoteToolNames(
      known === undefined ? current : withCurrent(known.lists, current),
    );
    const tools: RoutedTool[] = [];
    // One per server, so a tool set tells a server's tools apart from another's of the same id.
    const upstreams = new Map<string, UpstreamServer>();
    const upstreamOf = (serverId: string): UpstreamServer => {
      let upstream = upstreams.get(serverId);
      if (upstream === undefined) {
        upstream = Object.freeze(
          {
            id: serverId,
            source,
            request: (method, params, context) =>
              requestRemote(lookup, serverId, { method, params }, context),
          } satisfies UpstreamServer,
        );
        upstreams.set(serverId, upstream);
      }
      return upstream;
    };
    /** The names of the tools of servers not up now (or not selected), by server. */
    const absent = new Map<string, string[]>();
    const maxChars = this.#limits.maxDescriptionChars;
    for (const [name, { serverId, toolName }] of names) {
      const listed = byServer.get(serverId);
      const tool = listed?.find((candidate) => candidate.name === toolName);
      // A server that is not selected or not up now still takes part in naming, without tools.
      if (listed === undefined) {
        const held = absent.get(serverId);
        if (held === undefined) absent.set(serverId, [name]);
        else held.push(name);
      }
      if (tool === undefined) continue;
      tools.push(Object.freeze({
        name,
        description: tool.description ?? tool.title ?? "",
        inputSchema: upstreamInputSchema(tool.inputSchema),
        ...(tool.outputSchema ? { outputSchema: tool.outputSchema as JsonObjectSchema } : {}),
        ...(tool.annotations ? { annotations: tool.annotations as Record<string, unknown> } : {}),
        ...passedOn(tool),
        upstream: upstreamOf(serverId),
        // The server's hint alone never makes a tool read-only; the host's word does.
        ...(hostReadOnly(configs.get(serverId), { name: toolName, annotations: tool.annotations })
          ? { readOnly: true }
          : {}),
        source,
        origin: `${serverId}/${toolName}`,
        execute: (args: Record<string, unknown>, context: ToolContext) =>
          escapedResult(
            callRemote(lookup, serverId, toolName, args, escapedContext(context, maxChars)),
          ),
      }));
    }
    const refusals = guarded.flatMap((server) => server.refused);
    if (this.#cache.size >= CACHE_SIZE) this.#cache.delete(this.#cache.keys().next().value!);
    this.#cache.set(key, { tools, refused: refusals, absent });
    refused?.push(...refusals);
    if (refused !== undefined) nameAbsent(refused, absent);
    return tools;
  }
}

/**
 * Gives each missing server's entry the names its tools had, so a call to one of them says the
 * server is unavailable rather than that the name is unknown.
 */
function nameAbsent(missing: MissingTool[], absent: ReadonlyMap<string, string[]>): void {
  if (absent.size === 0) return;
  for (const entry of missing) {
    if (entry.selection !== "mcpServers" || entry.tools !== undefined) continue;
    const names = absent.get(entry.name);
    if (names !== undefined) entry.tools = [...names];
  }
}

/** The known lists, with the selected servers' current lists in place of theirs (or added). */
function withCurrent(
  known: readonly ServerToolNames[],
  current: readonly ServerToolNames[],
): ServerToolNames[] {
  const now = new Map(current.map((server) => [server.serverId, server]));
  const merged = known.map((server) => now.get(server.serverId) ?? server);
  for (const server of current) {
    if (!known.some((k) => k.serverId === server.serverId)) merged.push(server);
  }
  return merged;
}

/** What a server's listing carries for people's clients: the title, icons and `_meta`. */
function passedOn(
  tool: { title?: string; icons?: unknown; _meta?: unknown },
): Pick<RoutedTool, "title" | "icons" | "meta"> {
  const out: { -readonly [K in "title" | "icons" | "meta"]?: RoutedTool[K] } = {};
  if (typeof tool.title === "string") out.title = tool.title;
  if (Array.isArray(tool.icons)) {
    out.icons = tool.icons.filter((icon) => icon !== null && typeof icon === "object");
  }
  if (tool._meta !== null && typeof tool._meta === "object" && !Array.isArray(tool._meta)) {
    out.meta = tool._meta as Record<string, unknown>;
  }
  return out;
}

/** Sends a request on the connection the lookup gives now, for the tool's own user only. */
function requestRemote(
  lookup: ConnectionLookup,
  serverId: string,
  request: { method: UpstreamMethod; params: Record<string, unknown> },
  context: { signal: AbortSignal; userId?: string },
): Promise<Record<string, unknown>> {
  if (lookup.userId !== undefined && context.userId !== lookup.userId) {
    return Promise.reject(new Error(`The MCP server "${serverId}" belongs to another user`));
  }
  const connection = lookup.connection(serverId);
  if (connection?.request === undefined) {
    return Promise.reject(
      new Error(`The MCP server "${serverId}" cannot be reached now; list the tools again`),
    );
  }
  return connection.request(request.method, request.params, context);
}

/** Runs a remote tool on the connection the lookup gives now, for its own user only. */
function callRemote(
  lookup: ConnectionLookup,
  serverId: string,
  toolName: string,
  args: Record<string, unknown>,
  context: ToolContext,
): Promise<ToolOutput> {
  if (lookup.userId !== undefined && context.userId !== lookup.userId) {
    return Promise.reject(
      new ToolError("permission_denied", `Tool "${toolName}" belongs to another user`),
    );
  }
  const connection = lookup.connection(serverId);
  if (connection === undefined) {
    return Promise.reject(
      new ToolError(
        "upstream_unavailable",
        `The MCP server "${serverId}" was removed; expose the tools again`,
      ),
    );
  }
  try {
    return connection.callTool(toolName, args, context);
  } catch (error) {
    // A callee that throws instead of rejecting still fails only this call.
    return Promise.reject(error);
  }
}

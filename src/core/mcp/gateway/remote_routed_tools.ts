import type { JsonObjectSchema, MissingTool, RoutedTool, ToolContext } from "../../tool_source.ts";
import { assignRemoteToolNames } from "./remote_tool_names.ts";
import { escapedCall, escapedProgress } from "./remote_text.ts";
import {
  guardRemoteTools,
  REMOTE_TEXT_DEFAULTS,
  type RemoteTextLimits,
} from "./remote_tool_guard.ts";
import type { ServerConnection } from "./server_connection.ts";

/** Runs a remote tool: tier, user, server id, original tool name, arguments, context. */
export type RemoteExecutor = (
  serverId: string,
  toolName: string,
  args: Record<string, unknown>,
  context: ToolContext,
) => Promise<string>;

/** Most tool lists kept; the oldest is dropped first. */
const CACHE_SIZE = 256;

/**
 * Builds the `RoutedTool`s of one tier's selected, connected servers, named by
 * `assignRemoteToolNames`, and caches them until a server's tool list or connection changes.
 */
export class RemoteRoutedTools {
  #cache = new Map<string, { tools: RoutedTool[]; refused: MissingTool[] }>();
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
   * @param execute Runs a call (looked up again at call time, so removed servers fail cleanly).
   * @param cacheKey Identifies the executor (the tier and user).
   * @param refused Receives the tools refused or dropped by `guardRemoteTools` (for `missing`).
   * @returns The tools: names, descriptions and results with control and bidi characters
   * escaped, descriptions capped.
   */
  build(
    source: "user_mcp" | "global_mcp",
    servers: readonly {
      id: string;
      connection: Pick<ServerConnection, "serial" | "version" | "tools">;
    }[],
    execute: RemoteExecutor,
    cacheKey: string,
    refused?: MissingTool[],
  ): RoutedTool[] {
    let key = cacheKey;
    for (const { id, connection } of servers) {
      key += `\u0000${id}\u0001${connection.serial}.${connection.version}`;
    }
    const cached = this.#cache.get(key);
    if (cached !== undefined) {
      refused?.push(...cached.refused);
      return cached.tools;
    }
    const guarded = servers.map(({ id, connection }) => ({
      id,
      ...guardRemoteTools(id, connection.tools, this.#limits),
    }));
    const byServer = new Map(guarded.map(({ id, tools }) => [id, tools]));
    const names = assignRemoteToolNames(
      guarded.map(({ id, tools }) => ({ serverId: id, toolNames: tools.map((tool) => tool.name) })),
    );
    const tools: RoutedTool[] = [];
    for (const [name, { serverId, toolName }] of names) {
      const tool = byServer.get(serverId)!.find((candidate) => candidate.name === toolName)!;
      tools.push(Object.freeze({
        name,
        description: tool.description ?? tool.title ?? "",
        inputSchema: (tool.inputSchema ?? { type: "object" }) as JsonObjectSchema,
        ...(tool.outputSchema ? { outputSchema: tool.outputSchema as JsonObjectSchema } : {}),
        ...(tool.annotations ? { annotations: tool.annotations as Record<string, unknown> } : {}),
        source,
        origin: `${serverId}/${toolName}`,
        execute: (args: Record<string, unknown>, context: ToolContext) =>
          escapedCall(() => execute(serverId, toolName, args, escapedProgress(context))),
      }));
    }
    const refusals = guarded.flatMap((server) => server.refused);
    if (this.#cache.size >= CACHE_SIZE) this.#cache.delete(this.#cache.keys().next().value!);
    this.#cache.set(key, { tools, refused: refusals });
    refused?.push(...refusals);
    return tools;
  }
}

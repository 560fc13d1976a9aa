import type { ToolOutput } from "../../tool_output.ts";
import type { JsonObjectSchema, RoutedTool, ToolContext } from "../../tool_source.ts";
import { assignRemoteToolNames } from "./remote_tool_names.ts";
import type { ServerConnection } from "./server_connection.ts";

/** Runs a remote tool: tier, user, server id, original tool name, arguments, context. */
export type RemoteExecutor = (
  serverId: string,
  toolName: string,
  args: Record<string, unknown>,
  context: ToolContext,
) => Promise<ToolOutput>;

/** Most tool lists kept; the oldest is dropped first. */
const CACHE_SIZE = 256;

/**
 * Builds the `RoutedTool`s of one tier's selected, connected servers, named by
 * `assignRemoteToolNames`, and caches them until a server's tool list or connection changes.
 */
export class RemoteRoutedTools {
  #cache = new Map<string, RoutedTool[]>();

  /**
   * Returns the tools of the given servers of one tier.
   *
   * @param source `user_mcp` or `global_mcp`.
   * @param servers The connected servers, in selection order.
   * @param execute Runs a call (looked up again at call time, so removed servers fail cleanly).
   * @param cacheKey Identifies the executor (the tier and user).
   * @returns The tools.
   */
  build(
    source: "user_mcp" | "global_mcp",
    servers: readonly { id: string; connection: ServerConnection }[],
    execute: RemoteExecutor,
    cacheKey: string,
  ): RoutedTool[] {
    let key = cacheKey;
    for (const { id, connection } of servers) {
      key += `\u0000${id}\u0001${connection.serial}.${connection.version}`;
    }
    const cached = this.#cache.get(key);
    if (cached !== undefined) return cached;
    const byServer = new Map(servers.map(({ id, connection }) => [id, connection.tools]));
    const names = assignRemoteToolNames(
      servers.map(({ id, connection }) => ({
        serverId: id,
        toolNames: connection.tools.map((tool) => tool.name),
      })),
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
          execute(serverId, toolName, args, context),
      }));
    }
    if (this.#cache.size >= CACHE_SIZE) this.#cache.delete(this.#cache.keys().next().value!);
    this.#cache.set(key, tools);
    return tools;
  }
}

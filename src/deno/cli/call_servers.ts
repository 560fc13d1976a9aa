import { toApiFunctionName } from "../../core/api_function_name.ts";
import { assignRemoteToolNames } from "../../core/mcp/gateway/tools/remote_tool_names.ts";
import { lockPath, readToolLock } from "./tool_lock.ts";
import type { ToolrouteConfig } from "./toolroute_config.ts";

/**
 * The MCP servers `toolroute call NAME` needs to start: those whose locked tool lists (in
 * `toolroute.lock`) expose NAME, else those whose id NAME begins with (`server_tool`, the name a
 * clashing tool gets). Built-ins and module tools are found before any server starts (see
 * `callCommand`).
 *
 * @tags allow-read
 * @param options The tool name as called and the user (whose own servers count too).
 * @returns The server ids, with the name the tool has when only they are up (a prefixed
 *   name loses its prefix when no other server clashes); `undefined` when the name cannot be
 *   placed (start them all).
 */
export async function callServers(
  config: ToolrouteConfig,
  options: { name: string; userId?: string },
): Promise<{ servers: string[]; alias?: string } | undefined> {
  const { name, userId } = options;
  const own = config.users.find((user) => user.id === userId)?.mcpServers ?? {};
  const configured = [...new Set([...Object.keys(config.mcpServers), ...Object.keys(own)])];
  const path = lockPath(config);
  // A lock that cannot be read is `serve`'s to report; here it only fails to place the name.
  const lock = path === undefined ? undefined : await readToolLock(path).catch(() => undefined);
  if (lock !== undefined) {
    const tiers = [
      Object.keys(config.mcpServers).map((id) => [id, lock.servers[id]] as const),
      Object.keys(own).map((id) => [id, lock.users[userId!]?.[id]] as const),
    ];
    const found = new Set<string>();
    for (const tier of tiers) {
      const lists = tier.filter(([, tools]) => tools !== undefined)
        .map(([serverId, tools]) => ({ serverId, toolNames: Object.keys(tools!) }));
      const target = assignRemoteToolNames(lists).get(name);
      if (target !== undefined) found.add(target.serverId);
    }
    if (found.size > 0) return { servers: [...found] };
  }
  const prefixes = configured.map((id) => [id, toApiFunctionName(id, "x").slice(0, -1)] as const)
    .filter(([, prefix]) => name.startsWith(prefix) && name.length > prefix.length);
  if (prefixes.length === 0) return undefined;
  const servers = prefixes.map(([id]) => id);
  return prefixes.length === 1
    ? { servers, alias: name.slice(prefixes[0][1].length) }
    : { servers };
}

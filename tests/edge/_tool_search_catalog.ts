/**
 * The benchmark's 10,000-tool catalog (bench/_tool_catalog.ts repeated over numbered servers, as
 * `bench/tool_search.ts` builds it) as a deferred tool set, for the workerd search test: the
 * worker and the test build the same set, so their searches must rank alike.
 *
 * @module
 */

import { ToolSet } from "../../mod.ts";
import type { RoutedTool } from "../../src/core/tool_source.ts";
import { assignRemoteToolNames } from "../../src/core/mcp/gateway/tools/remote_tool_names.ts";
import { CATALOG, type CatalogEntry } from "../../bench/_tool_catalog.ts";

export { REQUESTS } from "../../bench/_tool_requests.ts";

/**
 * A deferred tool set of 10,000 remote tools from numbered copies of the benchmark's servers.
 *
 * @returns The set; its first search builds the index.
 */
export function searchCatalogSet(): ToolSet {
  const flat = Object.values(CATALOG).flat().length;
  const servers: [string, CatalogEntry[]][] = [];
  for (let k = 0; flat * k < 10_000; k++) {
    for (const [server, entries] of Object.entries(CATALOG)) {
      servers.push([`${server}${k}`, entries]);
    }
  }
  const names = assignRemoteToolNames(
    servers.map(([serverId, entries]) => ({ serverId, toolNames: entries.map(([name]) => name) })),
  );
  const byServer = new Map(servers);
  const tools: RoutedTool[] = [...names].slice(0, 10_000).map(([name, { serverId, toolName }]) => {
    const [, description, parameters] = byServer.get(serverId)!.find(([n]) => n === toolName)!;
    const keys = parameters === "" ? [] : parameters.split(",");
    return {
      name,
      description,
      inputSchema: {
        type: "object",
        properties: Object.fromEntries(keys.map((key) => [key, { type: "string" }])),
      },
      source: "global_mcp",
      origin: `${serverId}/${toolName}`,
      execute: () => "",
    };
  });
  return new ToolSet({ tools, shadowed: [], missing: [], settings: {}, defer: true });
}

/**
 * One `search_tools` call's names.
 *
 * @param set The set.
 * @param query The request.
 * @returns The names found, best first.
 */
export async function searchNames(set: ToolSet, query: string): Promise<string[]> {
  const result = await set.call("search_tools", { query, limit: 5 });
  if (result.isError) throw new Error(result.text);
  return JSON.parse(result.text).tools.map((tool: { name: string }) => tool.name);
}

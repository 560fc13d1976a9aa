import type { McpGateway } from "../../core/mcp/gateway/mcp_gateway.ts";
import { createDenoGateway, type DenoGatewayOptions } from "../mcp/deno_gateway.ts";
import type { ToolrouteConfig } from "./toolroute_config.ts";

/**
 * The gateway of a config's MCP servers, global and the users' own, as `serve` and `lock` both
 * connect them. Sandboxed servers' proxy sockets and caches are named after the config, so the
 * flags `toolroute flags` prints hold for both. Both declare elicitation to every server: `serve`
 * relays a server's questions to its own client, and a server may list some tools only to clients
 * that can elicit, so a lock that saw fewer tools than serve would withhold those forever.
 */
export function configGateway(
  config: ToolrouteConfig,
  options: Omit<DenoGatewayOptions, "servers" | "sandboxScope" | "relayElicitation">,
): McpGateway {
  const gateway = createDenoGateway({
    ...options,
    servers: config.mcpServers,
    sandboxScope: config.path,
    relayElicitation: true,
  });
  for (const user of config.users) {
    for (const [id, server] of Object.entries(user.mcpServers)) {
      gateway.addUserServer(user.id, id, server);
    }
  }
  return gateway;
}

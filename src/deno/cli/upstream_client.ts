import type { McpGatewayOptions } from "../../core/mcp/gateway/mcp_gateway_types.ts";

/**
 * What the CLI declares to every upstream MCP server as a client. `serve` relays a server's
 * questions (elicitation) to its own client, so it declares elicitation; `lock` declares exactly
 * the same, because a server may list some tools only to clients that can elicit, and a lock that
 * saw fewer tools than serve would withhold those forever.
 */
export const UPSTREAM_CLIENT: Readonly<Pick<McpGatewayOptions, "relayElicitation">> = Object
  .freeze({ relayElicitation: true });

import type { McpGatewayEvent } from "../../core/mcp/gateway/mcp_gateway_types.ts";
import { serverOf } from "./call_log.ts";
import type { CliIo } from "./cli_io.ts";

/**
 * One line per MCP server while it starts, for a person at a terminal (`serve` and `call`, when
 * stderr is one): a server that takes a while (a cold `npx` download) is not silence. Nothing
 * when stderr is not a terminal, where logs are read later and these lines would be noise.
 *
 * @param io Where the lines go, and whether stderr is a terminal.
 * @returns Receives the gateway's events; `undefined` when there is no terminal.
 */
export function startProgress(io: CliIo): ((event: McpGatewayEvent) => void) | undefined {
  if (io.terminal !== true) return undefined;
  const started = new Set<string>();
  return (event) => {
    if (event.type !== "connecting") return;
    const key = JSON.stringify([event.serverId, event.userId ?? null]);
    if (started.has(key)) return; // A reconnect is not a start.
    started.add(key);
    io.err(`toolroute: starting MCP server ${serverOf(event)}…`);
  };
}

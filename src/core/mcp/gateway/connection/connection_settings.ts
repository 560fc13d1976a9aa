import type { McpGatewayEvent } from "../mcp_gateway_types.ts";
import type { OpenClientSettings } from "./open_mcp_client.ts";
import type { SharedToolDefinitions } from "./shared_tool_definitions.ts";

/** Everything one connection needs, resolved from the gateway's options. */
export interface ConnectionSettings extends OpenClientSettings {
  /** Deadline of a call without its own. */
  requestTimeoutMs: number;
  /** Age after which a ready connection's tool list is listed again on use. */
  toolListTtlMs?: number;
  /** Hard deadline of a call that reports progress; default: 4 × its deadline. */
  maxTotalTimeoutMs?: number;
  /** Which calls carry a progress token (see `ProgressTokens`); default: `"auto"`. */
  progressTokens?: "auto" | "always";
  /** Most decoded bytes of a result's media. */
  maxMediaBytes?: number;
  /** Backoff: first delay, longest delay, factor, attempts per call. */
  reconnect: { initialDelayMs: number; maxDelayMs: number; factor: number; attempts: number };
  /** Receives events (without server and user, which the connection adds). */
  emit: (event: McpGatewayEvent) => void;
  /** Shares tool definitions between the gateway's connections; absent: each keeps its own. */
  toolDefinitions?: SharedToolDefinitions;
}

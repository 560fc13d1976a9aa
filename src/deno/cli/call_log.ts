import type { ToolCallEvent } from "../../core/tool_call_types.ts";
import type { McpGatewayEvent } from "../../core/mcp/gateway/mcp_gateway_types.ts";

/**
 * Formats one call as the single stderr line `serve` logs:
 * `toolroute: call read_file builtin user=alice 3 ms ok`, and under a policy its decision:
 * `… ok policy=ask/approved rule="write_file(src/**)"`.
 *
 * @param event The router's call event.
 * @returns The line, without a newline.
 */
export function formatCallLog(event: ToolCallEvent): string {
  const outcome = event.isError ? `error ${event.code ?? "tool_error"}` : "ok";
  const policy = event.decision === undefined
    ? ""
    : ` policy=${event.decision}${event.approval ? `/${event.approval}` : ""} rule=${
      JSON.stringify(event.rule ?? "default")
    }`;
  return `toolroute: call ${event.tool} ${event.source ?? "-"} user=${event.userId ?? "-"} ${
    Math.round(event.durationMs)
  } ms ${outcome}${policy}`;
}

/**
 * Formats a gateway connection event as one stderr line:
 * `toolroute: mcp server "search" connected (12 tools)`.
 *
 * @param event The gateway's event.
 * @returns The line, without a newline.
 */
export function formatGatewayLog(event: McpGatewayEvent): string {
  const who = `mcp server "${event.serverId}"${event.userId ? ` of user "${event.userId}"` : ""}`;
  const detail = event.type === "connected" || event.type === "tools_changed"
    ? ` (${event.tools ?? 0} tools)`
    : event.type === "closed"
    ? ` (${event.reason ?? "close"})`
    : event.message
    ? `: ${event.message}`
    : "";
  return `toolroute: ${who} ${event.type.replace("_", " ")}${detail}`;
}

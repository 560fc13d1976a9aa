import type { ToolCallEvent } from "../../core/tool_call.ts";

/**
 * Formats one call as the single stderr line `serve` logs:
 * `toolroute: call read_file builtin user=alice 3 ms ok`.
 *
 * @param event The router's call event.
 * @returns The line, without a newline.
 */
export function formatCallLog(event: ToolCallEvent): string {
  const outcome = event.isError ? `error ${event.code ?? "tool_error"}` : "ok";
  return `toolroute: call ${event.tool} ${event.source ?? "-"} user=${event.userId ?? "-"} ${
    Math.round(event.durationMs)
  } ms ${outcome}`;
}

import type { ToolCallEvent } from "../../core/tool_call_types.ts";
import type { McpGatewayEvent } from "../../core/mcp/gateway/mcp_gateway_types.ts";
import { escapeUnsafeChars } from "../../core/mcp/gateway/tools/remote_text.ts";

// What escapeUnsafeChars keeps but one log line must not hold: newline and tab, the Unicode line
// and paragraph separators, and the bidi marks (U+200E, U+200F, U+061C).
const LINE_BREAKING = /[\n\t\u2028\u2029\u200E\u200F\u061C]/g;
// A name or user id printed bare; anything else is printed JSON-quoted, so that a space cannot
// forge the fields after it (`read_file builtin user=alice`).
const BARE = /^[\w.:@\/+-]+$/;

/**
 * Makes text a client or a model chose safe for one line of `serve`'s stderr: control, bidi and
 * line-breaking characters are shown escaped (`\u001B`, `\u000A`), so that it cannot forge a log
 * line, hide or reorder text, or send terminal escapes.
 *
 * @param text The text (a tool name, a user id, an error message).
 * @returns The text on one line, those characters escaped.
 */
export function escapeLogText(text: string): string {
  return escapeUnsafeChars(text).replace(
    LINE_BREAKING,
    (char) => `\\u${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`,
  );
}

// Most characters of a name printed; a client's tool name may be of any length.
const FIELD_MAX = 200;

/** A name as one field of a log line: bare when plain, else quoted and escaped; at most 200. */
function field(text: string): string {
  const cut = text.length > FIELD_MAX ? `${text.slice(0, FIELD_MAX)}…(${text.length} chars)` : text;
  return BARE.test(cut) ? cut : escapeLogText(JSON.stringify(cut));
}

/**
 * Formats one call as the single stderr line `serve` logs:
 * `toolroute: call read_file builtin user=alice 3 ms ok`, and under a policy its decision:
 * `… ok policy=ask/approved rule="write_file(src/**)"`. A tool name or user id that is not plain
 * (an unknown tool's name is the client's choice) is printed quoted, escaped
 * ({@linkcode escapeLogText}) and cut to 200 characters.
 *
 * @returns The line, without a newline.
 */
export function formatCallLog(event: ToolCallEvent): string {
  const outcome = event.isError ? `error ${field(event.code ?? "tool_error")}` : "ok";
  const policy = event.decision === undefined
    ? ""
    : ` policy=${field(event.decision)}${event.approval ? `/${field(event.approval)}` : ""} rule=${
      escapeLogText(JSON.stringify(event.rule ?? "default"))
    }`;
  return `toolroute: call ${field(event.tool)} ${field(event.source ?? "-")} user=${
    field(event.userId ?? "-")
  } ${Math.round(event.durationMs)} ms ${outcome}${policy}`;
}

/**
 * Formats a gateway connection event as one stderr line:
 * `toolroute: mcp server "search" connected (12 tools)`; ids and the message escaped.
 *
 * @returns The line, without a newline.
 */
export function formatGatewayLog(event: McpGatewayEvent): string {
  const who = `mcp server ${serverOf(event)}`;
  // A stdio server without its sandbox (bubblewrap missing): one warning line per server.
  if (event.type === "unconfined") {
    return `toolroute: warning: ${who}: ${escapeLogText(event.message ?? "runs unconfined")}`;
  }
  const detail = event.type === "connected" || event.type === "tools_changed"
    ? ` (${event.tools ?? 0} tools)`
    : event.type === "closed"
    ? ` (${event.reason ?? "close"})`
    : event.message
    ? `: ${escapeLogText(event.message)}`
    : "";
  return `toolroute: ${who} ${event.type.replace("_", " ")}${detail}`;
}

/** A gateway event's server as log lines name it, quoted and escaped: `"search" of user "a"`. */
export function serverOf(event: { serverId: string; userId?: string }): string {
  return `${escapeLogText(JSON.stringify(event.serverId))}${
    event.userId ? ` of user ${escapeLogText(JSON.stringify(event.userId))}` : ""
  }`;
}

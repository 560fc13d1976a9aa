import type { RoutedTool } from "./tool_source.ts";

/**
 * Whether a tool changes nothing, by a word the host can stand behind: the tool's `readOnly`
 * (the host's own, or a trusted server's hint the gateway copied), or the `readOnlyHint` of a
 * tool whose code the host runs itself (built-in, function, local MCP). A remote server's
 * `readOnlyHint` alone does not count: the server could say anything.
 *
 * @returns `true` when `callAll` may run it alongside others and the retry and cache hooks may
 *   repeat or reuse its calls.
 */
export function isReadOnlyTool(tool: RoutedTool): boolean {
  if (tool.readOnly !== undefined) return tool.readOnly === true;
  if (tool.source === "user_mcp" || tool.source === "global_mcp") return false;
  return tool.annotations?.readOnlyHint === true;
}

import type { ToolCallResult } from "../tool_call_types.ts";

/**
 * Whether a result is a failure that may pass by itself: the call's deadline passed (`timeout`)
 * or the server could not be reached, answered with an HTTP 5xx or dropped the connection
 * (`upstream_unavailable`). A tool's own error, a refusal or the caller's abort is not.
 */
export function isTransientFailure(result: ToolCallResult): boolean {
  return result.isError && (result.code === "timeout" || result.code === "upstream_unavailable");
}

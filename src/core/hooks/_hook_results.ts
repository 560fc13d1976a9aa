import type { ToolCallResult } from "../tool_call_types.ts";
import { ERROR_CODES, type ErrorCode, ToolError } from "../tool_error.ts";
import type { ToolContent } from "../tool_output.ts";
import { toolOutput } from "../tool_output.ts";
import { errorResult } from "../tool_call.ts";

/** A hook's result as a call result; `undefined` when it is not one. */
export function asResult(
  value: unknown,
  call: { tool: string; previous?: ToolCallResult },
): ToolCallResult | undefined {
  const { tool, previous } = call;
  if (value === null || typeof value !== "object") return undefined;
  const given = value as Partial<ToolCallResult>;
  if (typeof given.text !== "string") return undefined;
  const isError = given.isError === true;
  const content: ToolContent[] = Array.isArray(given.content)
    ? given.content
    : [{ type: "text", text: given.text }];
  const result: ToolCallResult = { text: given.text, isError, tool, content };
  const source = previous?.source ?? given.source;
  if (source !== undefined) result.source = source;
  if (isError) {
    result.code = ERROR_CODES.includes(given.code as ErrorCode) ? given.code : "tool_error";
  }
  if (given.structuredContent !== null && typeof given.structuredContent === "object") {
    result.structuredContent = given.structuredContent;
  }
  return result;
}

/** What a hook's `rerun` hands back: the result's output, or its error thrown. */
export function replay(result: ToolCallResult): unknown {
  if (result.isError) throw new ToolError(result.code ?? "tool_error", result.text);
  return toolOutput({ content: result.content, structuredContent: result.structuredContent });
}

/** The `tool_error` result that replaces a result when a hook failed on it. */
export function failed(result: ToolCallResult, text: string): ToolCallResult {
  return errorResult({ name: result.tool, source: result.source }, { code: "tool_error", text });
}

import { contentText } from "../../../src/core/content_text.ts";
import { truncateMiddle } from "../../../src/core/tool_output.ts";
import { ToolError } from "../../../src/core/tool_error.ts";
import type { ToolContext } from "../../../src/core/tool_source.ts";
import {
  callMcpToolOutput,
  type McpCallOptions,
  type McpToolCall,
} from "../../../src/core/mcp/mcp_call.ts";
import type { Client } from "../../../src/core/mcp/mcp_sdk.ts";

/**
 * Calls a tool over an MCP client and returns its text (see `contentText`), converting errors,
 * error results included, to `ToolError`s: the tests' shorthand over `callMcpToolOutput`.
 *
 * @param client The connected client.
 * @param call The tool's name on the server, the arguments and the call's context.
 * @param options Deadline and result size.
 * @returns The result text.
 */
export async function callMcpTool(
  client: Pick<Client, "callTool">,
  call: McpToolCall & { context: ToolContext },
  options: McpCallOptions = {},
): Promise<string> {
  const output = await callMcpToolOutput(client, call, options);
  let text = contentText(output.content, output.structuredContent);
  if (options.maxResultChars !== undefined) text = truncateMiddle(text, options.maxResultChars);
  if (output.isError) {
    const message = text || `Tool "${call.toolName}" reported an error without a message`;
    throw new ToolError("tool_error", message);
  }
  return text;
}

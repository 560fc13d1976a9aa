/**
 * toolroute's wire formats (`@toolroute/toolroute/formats`): the shapes a tool set hands to each
 * model API (`toOpenAI()`, `toAnthropic()`, `toOpenAIResponses()`, `toMcp()`), the shapes of
 * the results it hands back, the content blocks of a tool's output, and the name joining a
 * service and a tool. For a host that names these shapes in its own code; a host that passes
 * them straight to its model API needs only the root entry.
 *
 * @example Join a service and a tool into an API function name
 * ```ts
 * import { toApiFunctionName } from "@toolroute/toolroute/formats";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(toApiFunctionName("weather-service", "query_weather"), "weather-service_query_weather");
 * ```
 *
 * @module
 */

export { toApiFunctionName } from "./api_function_name.ts";
export type {
  AnthropicTool,
  AnthropicToolSearchTool,
  McpToolDescription,
  OpenAITool,
} from "./tool_formats.ts";
export type {
  OpenAIResponsesFunction,
  OpenAIResponsesNamespace,
  OpenAIResponsesTool,
  OpenAIResponsesToolSearch,
} from "./openai_responses_format.ts";
export type {
  AnthropicToolResult,
  AnthropicToolResultBlock,
  OpenAIToolOutput,
  OpenAIToolOutputPart,
} from "./tool_result_formats.ts";
export type {
  ToolMediaContent,
  ToolResourceContent,
  ToolResourceLinkContent,
  ToolTextContent,
} from "./tool_output.ts";

/**
 * toolroute: a permission-aware tool router for LLM agents.
 *
 * This is the host API, web-standard only, so it runs on Deno and on edge runtimes: the router,
 * tool sets, definitions, results, errors, policy, stores and audit types. It brings no MCP SDK.
 * The MCP gateway, OAuth, pinning and serving over MCP live in the `./mcp` entry; built-in tools,
 * permission mapping, stdio MCP and config files in the `./deno` entry.
 *
 * @example Route a model's tool call
 * ```ts
 * import { defineTool, ToolRouter } from "@toolroute/toolroute";
 * import { z } from "zod";
 * import { assertEquals } from "@std/assert";
 *
 * const weather = defineTool({
 *   name: "get_weather",
 *   description: "Current weather for a city",
 *   input: z.object({ city: z.string() }),
 *   run: ({ city }) => ({ city, sky: "clear" }),
 * });
 * const router = new ToolRouter({ functions: [weather] });
 * const toolSet = await router.expose({ functions: ["get_weather"] });
 * assertEquals(await toolSet.invoke("get_weather", '{"city":"Oslo"}'), '{"city":"Oslo","sky":"clear"}');
 * ```
 *
 * @module
 */

export { API_FUNCTION_NAME_PATTERN, toApiFunctionName } from "./src/core/api_function_name.ts";
export { defineTool } from "./src/core/define_tool.ts";
export type { FunctionTool, FunctionToolSpec } from "./src/core/define_tool.ts";
export { defineMcpService } from "./src/core/define_mcp_service.ts";
export type {
  McpService,
  McpServiceSpec,
  McpServiceToolSpec,
} from "./src/core/define_mcp_service.ts";
export { ToolRouter } from "./src/core/tool_router.ts";
export type { RouterInvokeOptions, ToolRouterOptions } from "./src/core/tool_router.ts";
export type { ToolSelection } from "./src/core/tool_selection.ts";
export { ToolSet } from "./src/core/tool_set.ts";
export type { DeferSetting, ShadowedTool, ToolSetInit } from "./src/core/tool_set.ts";
export type {
  CallOptions,
  CallSettings,
  ToolCallEvent,
  ToolCallResult,
} from "./src/core/tool_call_types.ts";
export type {
  AnthropicTool,
  AnthropicToolSearchTool,
  McpToolDescription,
  OpenAITool,
} from "./src/core/tool_formats.ts";
export { isToolOutput, toolOutput } from "./src/core/tool_output.ts";
export type {
  ToolContent,
  ToolMediaContent,
  ToolOutput,
  ToolResourceContent,
  ToolResourceLinkContent,
  ToolTextContent,
} from "./src/core/tool_output.ts";
export { toAnthropicToolResult, toOpenAIToolOutput } from "./src/core/tool_result_formats.ts";
export type {
  AnthropicToolResult,
  AnthropicToolResultBlock,
  OpenAIToolOutput,
  OpenAIToolOutputPart,
} from "./src/core/tool_result_formats.ts";
export { ERROR_CODES, isToolError, ToolError } from "./src/core/tool_error.ts";
export type { ErrorCode } from "./src/core/tool_error.ts";
export type { ArgumentLimits } from "./src/core/parse_arguments.ts";
export { truncateMiddle } from "./src/core/result_text.ts";
export { SOURCE_PRIORITY } from "./src/core/tool_source.ts";
export type {
  BashSetting,
  BuiltinContext,
  BuiltinRequest,
  BuiltinSource,
  GatewayRequest,
  GatewayResolution,
  GatewaySource,
  JsonObjectSchema,
  MissingTool,
  PolicySubjects,
  RoutedTool,
  SelectionKey,
  ShellCommand,
  SourceKind,
  SourceResolution,
  ToolContext,
  ToolElicitation,
  ToolElicitationResult,
  ToolLogEntry,
  ToolProgress,
} from "./src/core/tool_source.ts";
export type { InferArgs, InputSchema } from "./src/core/input_schema.ts";
// The router's own option (mounted services' structured output) names these; ./mcp has the rest.
export type {
  McpJsonSchemaValidation,
  McpJsonSchemaValidator,
} from "./src/core/mcp/mcp_transport.ts";
export { MemoryStore } from "./src/core/store/memory_store.ts";
export type {
  KeyValueEntry,
  KeyValueSetOptions,
  KeyValueStore,
} from "./src/core/store/key_value_store.ts";
export type {
  ApprovalAnswer,
  ApprovalHandler,
  ApprovalOutcome,
  ApprovalRequest,
  ApprovalSelection,
  PendingApproval,
  Policy,
  PolicyAction,
} from "./src/core/policy_types.ts";
export type { BatchCall, CallAllOptions } from "./src/core/policy/call_all.ts";
export type { AuditDecision, AuditRecord, AuditSink } from "./src/core/audit_sink.ts";

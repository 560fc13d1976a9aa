/**
 * toolroute: a permission-aware tool router for LLM agents.
 *
 * This is the portable core: web-standard only, so it runs on Deno and on edge runtimes.
 * Built-in tools, permission mapping, stdio MCP and config files live in the `./deno` entry.
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
export type { MountableMcpServer } from "./src/core/mcp/mount_mcp_server.ts";
export { ToolSetServer } from "./src/core/mcp/serve/tool_set_server.ts";
export type {
  ToolSetProvider,
  ToolSetRequest,
  ToolSetServerOptions,
} from "./src/core/mcp/serve/tool_set_server.ts";
export { mcpHttpHandler } from "./src/core/mcp/serve/mcp_http_handler.ts";
export type {
  McpHttpHandler,
  McpHttpHandlerOptions,
} from "./src/core/mcp/serve/mcp_http_handler.ts";
export { cfWorkerJsonSchemaValidator } from "./src/core/mcp/cfworker_validator.ts";
export type { CfWorkerValidatorOptions } from "./src/core/mcp/cfworker_validator.ts";
export { McpGateway } from "./src/core/mcp/gateway/mcp_gateway.ts";
export { AuthorizationRequiredError } from "./src/core/mcp/gateway/oauth/authorization_required_error.ts";
export { McpOAuth } from "./src/core/mcp/gateway/oauth/mcp_oauth.ts";
export { MemoryStore } from "./src/core/store/memory_store.ts";
export type {
  KeyValueEntry,
  KeyValueSetOptions,
  KeyValueStore,
} from "./src/core/store/key_value_store.ts";
export type { McpOAuthClient } from "./src/core/mcp/mcp_server_config.ts";
export type { McpOAuthOptions } from "./src/core/mcp/gateway/oauth/mcp_oauth_options.ts";
export type {
  McpConnectionState,
  McpElicitationRequest,
  McpElicitationResult,
  McpGatewayEvent,
  McpGatewayOptions,
  McpReconnectOptions,
  McpServerStatus,
} from "./src/core/mcp/gateway/mcp_gateway_types.ts";
export type {
  McpHttpServerConfig,
  McpServerConfig,
  McpStdioServerConfig,
} from "./src/core/mcp/mcp_server_config.ts";
export type {
  McpJsonRpcMessage,
  McpJsonSchemaValidation,
  McpJsonSchemaValidator,
  McpTransport,
  McpTransportFactory,
  McpTransportRequest,
} from "./src/core/mcp/mcp_transport.ts";
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
export type { PinningOptions, PinStore, ToolPin } from "./src/core/mcp/gateway/pin_store.ts";
export type { AuditDecision, AuditRecord, AuditSink } from "./src/core/audit_sink.ts";

/**
 * toolroute: a permission-aware tool router for LLM agents.
 *
 * This is the host API, web-standard only, so it runs on Deno and on edge runtimes: the router,
 * tool sets, definitions, results, errors and policy (with its approvals, audit and store). It
 * brings no MCP SDK. Each other audience has its entry: `./mcp` for the gateway, OAuth, pinning,
 * serving over MCP and transports; `./deno` for the built-in tools, permission mapping, stdio MCP
 * and config files; `./cli` for the `toolroute` command; `./unstable-source` for writing a tool
 * source of one's own (not yet stable).
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

// Module order matters for the edge bundle's size (modules are laid out in import order): keep it.
export { toApiFunctionName } from "./src/core/api_function_name.ts";
export { defineTool } from "./src/core/define_tool.ts";
export type { FunctionTool, FunctionToolSpec } from "./src/core/define_tool.ts";
export { defineMcpService } from "./src/core/define_mcp_service.ts";
export type {
  McpService,
  McpServiceSpec,
  McpServiceToolSpec,
} from "./src/core/define_mcp_service.ts";
export { ToolRouter } from "./src/core/tool_router.ts";
export type { RouterInvokeOptions, ToolRouterOptions } from "./src/core/tool_router_options.ts";
export type { ToolSelection } from "./src/core/tool_selection.ts";
export { ToolSet } from "./src/core/tool_set.ts";
export type { DeferSetting, ShadowedTool } from "./src/core/tool_set.ts";
export type { CallOptions, ToolCallEvent, ToolCallResult } from "./src/core/tool_call_types.ts";
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
export type {
  MissingTool,
  SourceKind,
  ToolContext,
  ToolElicitation,
  ToolElicitationResult,
  ToolLogEntry,
  ToolProgress,
  UpstreamMethod,
  UpstreamServer,
} from "./src/core/tool_source.ts";
export type { InferArgs, InputSchema } from "./src/core/input_schema.ts";
// Policy: rules, approvals, their audit trail and the store of used approvals.
export { MemoryStore } from "./src/core/store/memory_store.ts";
export { KeyValueResultStore } from "./src/core/key_value_result_store.ts";
export type { ResultStore, StoredResultInfo } from "./src/core/result_store.ts";
export type { ResultBudget } from "./src/core/result_budget.ts";
export type {
  OpenAIResponsesFunction,
  OpenAIResponsesNamespace,
  OpenAIResponsesTool,
  OpenAIResponsesToolSearch,
} from "./src/core/openai_responses_format.ts";
export { EncryptedStore } from "./src/core/store/encrypted_store.ts";
export type { StoreKey } from "./src/core/store/encrypted_store.ts";
export type {
  KeyValueEntry,
  KeyValueIncrementOptions,
  KeyValueSetOptions,
  KeyValueStore,
} from "./src/core/store/key_value_store.ts";
export type {
  ApprovalAnswer,
  ApprovalHandler,
  ApprovalOutcome,
  ApprovalRequest,
  ApprovalScope,
  ApprovalSelection,
  Grant,
  PendingApproval,
  Policy,
  PolicyAction,
  PolicyLimit,
} from "./src/core/policy_types.ts";
export type { BatchCall, CallAllOptions } from "./src/core/policy/call_all.ts";
export type {
  HookAfterCall,
  HookBeforeResult,
  HookCall,
  ToolHook,
} from "./src/core/hooks/tool_hook.ts";
export type { HookRecord } from "./src/core/hook_record.ts";
export { retryHook } from "./src/core/hooks/retry_hook.ts";
export type { RetryHookOptions } from "./src/core/hooks/retry_hook.ts";
export { circuitBreakerHook } from "./src/core/hooks/circuit_breaker_hook.ts";
export type { CircuitBreakerOptions } from "./src/core/hooks/circuit_breaker_hook.ts";
export { resultCacheHook } from "./src/core/hooks/result_cache_hook.ts";
export type { ResultCacheOptions } from "./src/core/hooks/result_cache_hook.ts";
export { secretScannerHook, WELL_KNOWN_SECRETS } from "./src/core/hooks/secret_scanner_hook.ts";
export type { SecretPattern, SecretScannerOptions } from "./src/core/hooks/secret_scanner_hook.ts";
export type { AuditDecision, AuditRecord, AuditSink } from "./src/core/audit_sink.ts";

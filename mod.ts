/**
 * toolroute: a permission-aware tool router for LLM agents.
 *
 * This is the host API a host needs on day one, web-standard only, so it runs on Deno and on edge
 * runtimes: the router, tool sets, definitions, results, errors and policy with its approvals. It
 * brings no MCP SDK. Each other audience has its entry: `./hooks` for call middleware (retry,
 * circuit breaker, result cache, secret scanning); `./stores` for the stores of approvals and
 * results and the audit sink; `./formats` for the model APIs' wire shapes; `./options` for the
 * types of finer settings and reports; `./mcp` for the gateway, OAuth, pinning, serving over MCP
 * and transports; `./deno` for the built-in tools, permission mapping, stdio MCP, config files and
 * Deno's stores; `./cli` for the `toolroute` command; `./unstable-source` for writing a tool source
 * of one's own (not yet stable).
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
export type { CallOptions, ToolCallEvent, ToolCallResult } from "./src/core/tool_call_types.ts";
export { isToolOutput, toolOutput } from "./src/core/tool_output.ts";
export type { ToolContent, ToolOutput } from "./src/core/tool_output.ts";
export { toAnthropicToolResult, toOpenAIToolOutput } from "./src/core/tool_result_formats.ts";
export { ERROR_CODES, isToolError, ToolError } from "./src/core/tool_error.ts";
export type { ErrorCode } from "./src/core/tool_error.ts";
export type { SourceKind, ToolContext } from "./src/core/tool_source.ts";
export type { InferArgs, InputSchema } from "./src/core/input_schema.ts";
// Policy: rules and approvals (their stores and audit sink are ./stores').
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

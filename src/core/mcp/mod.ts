/**
 * toolroute's MCP entry (`@toolroute/toolroute/mcp`): the gateway to remote MCP servers, their
 * OAuth, tool pinning, serving a tool set over MCP (`ToolSetServer`, `mcpHttpHandler`), the
 * transports, what `ToolRouter#mountMcpServer` takes and the MCP-specific JSON Schema validator. Web-standard, like the root entry; it is the entry that
 * brings the MCP SDK, so a host that routes only its own functions imports `@toolroute/toolroute`
 * and bundles no SDK.
 *
 * @example Serve a tool set over MCP's streamable HTTP
 * ```ts
 * import { defineTool, ToolRouter } from "@toolroute/toolroute";
 * import { mcpHttpHandler } from "@toolroute/toolroute/mcp";
 * import { z } from "zod";
 * import { assertEquals } from "@std/assert";
 *
 * const add = defineTool({
 *   name: "add",
 *   description: "Adds two numbers",
 *   input: z.object({ a: z.number(), b: z.number() }),
 *   run: ({ a, b }) => a + b,
 * });
 * const toolSet = await new ToolRouter({ functions: [add] }).expose({ functions: ["add"] });
 * const handler = mcpHttpHandler({ tools: () => toolSet });
 * const response = await handler(new Request("http://127.0.0.1/mcp", { method: "GET" }));
 * assertEquals(response.ok, false); // a plain GET is no MCP request
 * await response.body?.cancel();
 * await handler.close();
 * ```
 *
 * @module
 */

export { ToolSetServer } from "./serve/tool_set_server.ts";
export type {
  ToolSetProvider,
  ToolSetRequest,
  ToolSetServerOptions,
} from "./serve/tool_set_server.ts";
export { mcpHttpHandler } from "./serve/mcp_http_handler.ts";
export type { McpHttpHandler, McpHttpHandlerOptions } from "./serve/mcp_http_handler.ts";
export { cfWorkerJsonSchemaValidator } from "./cfworker_validator.ts";
export type { CfWorkerValidatorOptions } from "./cfworker_validator.ts";
export { McpGateway } from "./gateway/mcp_gateway.ts";
export { mountMcpServer } from "./mount_mcp_server.ts";
export type { MountableMcpServer, MountedMcpService, MountOptions } from "./mount_mcp_server.ts";
export { AuthorizationRequiredError } from "./gateway/oauth/authorization_required_error.ts";
export { McpOAuth } from "./gateway/oauth/mcp_oauth.ts";
export type { McpOAuthClient, McpOAuthOptions } from "./gateway/oauth/mcp_oauth_options.ts";
export type {
  McpConnectionState,
  McpElicitationRequest,
  McpElicitationResult,
  McpGatewayEvent,
  McpGatewayOptions,
  McpReconnectOptions,
  McpServerStatus,
} from "./gateway/mcp_gateway_types.ts";
export type {
  McpHttpServerConfig,
  McpProtocolSetting,
  McpServerConfig,
  McpStdioSandbox,
  McpStdioSandboxSetting,
  McpStdioServerConfig,
} from "./mcp_server_config.ts";
export type {
  McpJsonRpcMessage,
  McpJsonSchemaValidation,
  McpJsonSchemaValidator,
  McpTransport,
  McpTransportFactory,
  McpTransportRequest,
} from "./mcp_transport.ts";
export type { PinningOptions, PinStore, ToolPin } from "./gateway/pin_store.ts";
// What a tool set relays of its upstream servers (resources, prompts, completions) when served.
export type { UpstreamMethod, UpstreamServer } from "../tool_source.ts";

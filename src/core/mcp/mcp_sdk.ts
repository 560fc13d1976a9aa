/**
 * The one module that imports the MCP SDK's code (`@modelcontextprotocol/client` and
 * `@modelcontextprotocol/server` 2.x; `mcp_sdk_types.ts` holds the few types that code without the
 * SDK at run time names). `tests/core/mcp/mcp_sdk_test.ts` fails if any export types as `any`.
 *
 * Only web-standard parts are here (no stdio, no Node.js HTTP). The client and the server package
 * each carry their own copy of the shared protocol code; their error classes match across the
 * copies (`instanceof` is brand-based), and the shared types are taken from the client.
 *
 * @module
 */

export {
  auth as oauthAuthorize,
  Client,
  createPrivateKeyJwtAuth,
  extractWWWAuthenticateParams,
  InMemoryTransport,
  parseJSONRPCMessage,
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  SSEClientTransport,
  SseError,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
// The runtime's default validator: ajv where code generation is allowed (Deno, Node.js), the
// cfworker one in browser and workerd builds, so an edge bundle carries no ajv.
export { DefaultJsonSchemaValidator } from "@modelcontextprotocol/client/_shims";
export type {
  AddClientAuthentication,
  CallToolResult,
  ClientContext,
  ClientOptions,
  ContentBlock,
  DiscoverResult,
  ElicitResult,
  Implementation,
  JSONRPCMessage,
  jsonSchemaValidator as JsonSchemaValidator,
  ListToolsResult,
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  OAuthTokens,
  PriorDiscovery,
  ProtocolEra,
  Tool as McpTool,
  Transport,
  TransportSendOptions,
  VersionNegotiationOptions,
} from "@modelcontextprotocol/client";
export {
  createMcpHandler,
  inputRequired,
  isLegacyRequest,
  Server,
  UriTemplate,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
export type {
  InputRequiredResult,
  McpHttpHandler as SdkMcpHandler,
  McpRequestContext,
  ServerContext,
} from "@modelcontextprotocol/server";
// Both eras over one stdio connection: the opening message picks the era (SDK 2.x). Its
// `process` shim is only touched without a transport of one's own, which toolroute never does.
export { serveStdio } from "@modelcontextprotocol/server/stdio";

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

import type {
  Client as SdkClient,
  Implementation,
  ServerCapabilities,
} from "@modelcontextprotocol/client";

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
// The cfworker validator by name: in a browser or workerd build it is the default's own module,
// so naming it adds no second copy of the engine.
export { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
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

/** What a 2025-era client learnt from `initialize`: enough to go on with its session on a new client. */
export interface LegacyHandshake {
  /** The negotiated protocol version (sent as `MCP-Protocol-Version` on every request). */
  protocolVersion: string;
  /** The server's capabilities (the client's list methods answer empty without `tools` etc.). */
  capabilities: ServerCapabilities;
  serverVersion?: Implementation;
  instructions?: string;
}

/**
 * The handshake of a connected 2025-era client, read through its public getters.
 *
 * @returns The handshake, or `undefined` when the client is not a connected 2025-era one.
 */
export function legacyHandshakeOf(client: SdkClient): LegacyHandshake | undefined {
  const protocolVersion = client.getNegotiatedProtocolVersion();
  const capabilities = client.getServerCapabilities();
  if (client.getProtocolEra() !== "legacy" || protocolVersion === undefined) return undefined;
  if (capabilities === undefined) return undefined;
  const serverVersion = client.getServerVersion();
  const instructions = client.getInstructions();
  return {
    protocolVersion,
    capabilities,
    ...(serverVersion === undefined ? {} : { serverVersion }),
    ...(instructions === undefined ? {} : { instructions }),
  };
}

/**
 * Gives a new, not yet connected client the handshake of an earlier one, so that connecting it
 * to a transport that carries that session (`sessionId`) resumes the session: SDK 2.4.0's
 * `Client#connect` runs no `initialize` for a transport with a session id and passes the
 * negotiated version it holds to the transport (the way the SDK documents for rebuilding a
 * transport under one client). The SDK keeps these fields private and has no setter: they are
 * written here, the one module that knows the SDK, and `tests/core/mcp/mcp_sdk_test.ts` fails if
 * a new SDK stops reading them.
 *
 * @param client A new client.
 * @param handshake What the earlier client learnt.
 */
export function adoptLegacyHandshake(client: SdkClient, handshake: LegacyHandshake): void {
  const fields = client as unknown as {
    _negotiatedProtocolVersion?: string;
    _serverCapabilities?: ServerCapabilities;
    _serverVersion?: Implementation;
    _instructions?: string;
  };
  fields._negotiatedProtocolVersion = handshake.protocolVersion;
  fields._serverCapabilities = handshake.capabilities;
  fields._serverVersion = handshake.serverVersion;
  fields._instructions = handshake.instructions;
}

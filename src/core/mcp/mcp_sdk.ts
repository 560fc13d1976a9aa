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

import {
  Client as SdkClient,
  type ClientContext,
  type Implementation,
  isInputRequiredResult,
  ProtocolError,
  type Request as SdkRequest,
  type RequestMethod,
  type RequestOptions,
  type ResultTypeMap,
  SdkError,
  SdkErrorCode,
  type ServerCapabilities,
  type StandardSchemaV1,
  withInputRequired,
} from "@modelcontextprotocol/client";
import { delay } from "@std/async";
import type { McpInputAnswerer } from "./mcp_call.ts";

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

/**
 * The SDK's `Client` as toolroute makes it (the gateway's connections, mounted servers): the SDK
 * client unchanged, except that a `tools/call` is sent through the client's own `request()` with
 * a result schema given, the very check the SDK makes: its negotiated era's `CallToolResult`
 * validation (`validateResult`), as its wire codec offers it to role classes (`_wireCodec`).
 *
 * Given no schema (what `callTool()` does), SDK 2.4's `request()` first probes the era's result
 * schema with `undefined` to learn whether the method has one, and the probe builds and renders
 * a `ZodError` on every call: the largest single part of the SDK's own CPU in a call, which
 * changes nothing for `tools/call` (it has a result schema in both eras). Everything else of
 * `callTool()` runs as it did: output-schema validation, `Mcp-Param-*` header mirroring and its
 * retry, the era check of the method, deadlines, progress, cancellation.
 * `tests/core/mcp/mcp_sdk_test.ts` fails if a new SDK stops calling `request()` from `callTool()`
 * or probes again.
 */
export class CallingClient extends SdkClient {
  override request<M extends RequestMethod>(
    request: { method: M; params?: Record<string, unknown> },
    options?: RequestOptions,
  ): Promise<ResultTypeMap[M]>;
  override request<T extends StandardSchemaV1>(
    request: SdkRequest,
    resultSchema: T,
    options?: RequestOptions,
  ): Promise<StandardSchemaV1.InferOutput<T>>;
  override request(
    request: SdkRequest,
    schemaOrOptions?: StandardSchemaV1 | RequestOptions,
    options?: RequestOptions,
  ): Promise<unknown> {
    if (request.method !== "tools/call" || isStandardSchema(schemaOrOptions)) {
      return super.request(request, schemaOrOptions as StandardSchemaV1, options);
    }
    const own = schemaOrOptions as
      | (RequestOptions & { answerInput?: McpInputAnswerer })
      | undefined;
    const schema = toolResultSchema(this._wireCodec());
    if (own?.answerInput === undefined || this.getProtocolEra() !== "modern") {
      return super.request(request, schema, own);
    }
    const { answerInput, ...rest } = own;
    return this.#inRounds(request, { schema, options: rest, answerInput });
  }

  /**
   * A 2026-07-28 `tools/call` whose `input_required` rounds are answered by the call's own
   * answerer: the SDK's manual mode (`allowInputRequired`), its questions checked and their
   * answers completed (schema defaults) by the SDK's own elicitation wrapper, then sent again with
   * the answers and the server's `requestState`, as the SDK's driver does (its round cap, its
   * pause before a round that carries only state, its shrinking total deadline). The SDK's driver
   * hands each question to the client's one handler, which cannot tell whose call it came in; on
   * a connection several users' calls share, such a question could only be cancelled.
   */
  async #inRounds(
    request: SdkRequest,
    call: { schema: StandardSchemaV1; options: RequestOptions; answerInput: McpInputAnswerer },
  ): Promise<unknown> {
    const { options, answerInput } = call;
    let schema = inputRequiredSchemas.get(call.schema);
    if (schema === undefined) {
      schema = withInputRequired(call.schema);
      inputRequiredSchemas.set(call.schema, schema);
    }
    const startedAt = Date.now();
    let answer: ReturnType<CallingClient["_wrapHandler"]> | undefined;
    let result: unknown = await super.request(request, schema, {
      ...options,
      allowInputRequired: true,
    });
    for (let round = 1; isInputRequiredResult(result); round++) {
      if (round > MAX_INPUT_ROUNDS) {
        throw new SdkError(
          SdkErrorCode.InputRequiredRoundsExceeded,
          `The server still asked for input after ${MAX_INPUT_ROUNDS} rounds of "tools/call"`,
        );
      }
      const asked = Object.entries(result.inputRequests ?? {});
      if (asked.length === 0) await delay(STATE_ONLY_ROUND_MS, { signal: options.signal });
      const inputResponses: Record<string, unknown> = {};
      answer ??= this._wrapHandler(
        "elicitation/create",
        async (question) => await answerInput(question.params ?? {}, options.signal) as never,
      );
      for (const [key, entry] of asked) {
        try {
          inputResponses[key] = await answer(embeddedRequest(key, entry), NO_CONTEXT);
        } catch (error) {
          // The SDK's checks of a question and its answer (and a relaying client's refusal) throw
          // JSON-RPC errors, whose codes read as the tool call's own ("invalid params": the
          // model's arguments): the question or its answer failed, nothing the model could fix
          // by calling again.
          if (!(error instanceof ProtocolError)) throw error;
          throw new SdkError(
            SdkErrorCode.InvalidResult,
            `Input request '${key.slice(0, 60)}' could not be answered: ${error.message}`,
          );
        }
      }
      const leg: RequestOptions = { ...options, allowInputRequired: true };
      if (options.maxTotalTimeout !== undefined) {
        const left = options.maxTotalTimeout - (Date.now() - startedAt);
        if (left <= 0) {
          throw new SdkError(SdkErrorCode.RequestTimeout, "Maximum total timeout exceeded");
        }
        leg.maxTotalTimeout = left;
      }
      const params = {
        ...request.params,
        ...(asked.length === 0 ? {} : { inputResponses }),
        ...(result.requestState === undefined ? {} : { requestState: result.requestState }),
      };
      result = await super.request({ method: request.method, params }, schema, leg);
    }
    return result;
  }
}

/** The result schema of each era's codec that also lets an `input_required` result through. */
const inputRequiredSchemas = new WeakMap<StandardSchemaV1, StandardSchemaV1>();

/** Most `input_required` rounds of one call (the SDK driver's own cap). */
const MAX_INPUT_ROUNDS = 10;

/** The pause before a round that answers nothing and only sends the state back (the SDK's). */
const STATE_ONLY_ROUND_MS = 250;

/**
 * What the SDK's elicitation wrapper passes on to the answerer as its context: the answerer is
 * the call's own and needs none.
 */
const NO_CONTEXT = Object.freeze({}) as ClientContext;

/** An embedded input request as a JSON-RPC request; one toolroute does not answer fails the call. */
function embeddedRequest(key: string, entry: unknown) {
  const { method, params } = (entry ?? {}) as { method?: unknown; params?: unknown };
  if (method !== "elicitation/create") {
    throw new SdkError(
      SdkErrorCode.CapabilityNotSupported,
      `Cannot fulfil input request '${key.slice(0, 60)}': toolroute answers only ` +
        `elicitation/create, not ${JSON.stringify(String(method)).slice(0, 60)}`,
    );
  }
  const body = params !== null && typeof params === "object" && !Array.isArray(params)
    ? { params: params as Record<string, unknown> }
    : {};
  return { jsonrpc: "2.0" as const, id: key, method, ...body };
}

/** A negotiated era's wire codec, as `_wireCodec()` gives it to role classes. */
type WireCodec = ReturnType<CallingClient["_wireCodec"]>;

/** The `tools/call` result schema of each era's codec (there are two codecs in all). */
const toolResultSchemas = new WeakMap<WireCodec, StandardSchemaV1>();

/**
 * The SDK's own adapter of its codec's result validation (`codecResultValidator` of SDK 2.4),
 * without the probe: the same validation, the same value, the same issue text.
 */
function toolResultSchema(codec: WireCodec): StandardSchemaV1 {
  let schema = toolResultSchemas.get(codec);
  if (schema === undefined) {
    schema = {
      "~standard": {
        version: 1,
        vendor: "mcp-wire-codec",
        validate(value: unknown) {
          const outcome = codec.validateResult("tools/call", value);
          if (outcome.ok) return { value: outcome.value };
          const message = outcome.reason === "invalid" ? outcome.message : "not-in-era: tools/call";
          return { issues: [{ message }] };
        },
      },
    };
    toolResultSchemas.set(codec, schema);
  }
  return schema;
}

/** Whether `request()` takes its second argument for a result schema (as the SDK tells). */
function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if (value === null || (typeof value !== "object" && typeof value !== "function")) return false;
  const standard = (value as { "~standard"?: { validate?: unknown } })["~standard"];
  return typeof standard?.validate === "function";
}

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

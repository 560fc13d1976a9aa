import type { CallOptions, ToolCallResult } from "../../tool_call_types.ts";
import type { ToolSet } from "../../tool_set.ts";
import type { ToolProgress } from "../../tool_source.ts";
import type { ToolElicitation, ToolElicitationResult, ToolLogEntry } from "../../tool_source.ts";
import {
  type CallToolResult,
  type ListToolsResult,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerContext,
  type Transport,
} from "../mcp_sdk.ts";
import {
  callWithElicitation,
  type ElicitationCapability,
  type ElicitingExtra,
} from "./approval_elicitation.ts";
import { callInRounds } from "./modern_call_rounds.ts";
import { servedLinks, UpstreamFeatures } from "./upstream_features.ts";
import { servedRunId } from "./_served_run_id.ts";

/** The protocol era an SDK server instance serves (the serving entries know it). */
export type ServedEra = "legacy" | "modern";

const ERA = Symbol("era");
const SDK_SERVERS = new WeakMap<ToolSetServer, Server>();

/**
 * The SDK server of a new {@linkcode ToolSetServer} for one era, for the serving entries that
 * make one per request or connection (`createMcpHandler`, `serveStdio`). In the modern era a
 * policy's ask and a tool's question become `input_required` results.
 *
 * @param tools The tool set or provider.
 * @param options The server's options and the `era` the instance serves.
 * @returns The tool set server and its SDK server.
 */
export function toolSetServerForEra(
  tools: ToolSet | ToolSetProvider,
  options: ToolSetServerOptions & { era: ServedEra },
): { server: ToolSetServer; sdk: Server } {
  const { era, ...rest } = options;
  const server = new ToolSetServer(tools, { ...rest, [ERA]: era } as ToolSetServerOptions);
  return { server, sdk: SDK_SERVERS.get(server)! };
}

/** Who is asking, for one MCP request a {@linkcode ToolSetServer} answers. */
export interface ToolSetRequest {
  /** The authenticated user (from the HTTP handler's bearer token), or the server's fixed user. */
  userId?: string;
  /** The MCP session, in stateful HTTP mode. */
  sessionId?: string;
  /** Aborts when the client cancels the request or disconnects. */
  signal: AbortSignal;
}

/** Returns the tool set one MCP request may use: per user in HTTP mode. */
export type ToolSetProvider = (request: ToolSetRequest) => ToolSet | Promise<ToolSet>;

/** Options of {@linkcode ToolSetServer}. */
export interface ToolSetServerOptions {
  /** The server name reported to clients. Default: `"toolroute"`. */
  name?: string;
  /** The server version reported to clients. Default: `"0.1.0"`. */
  version?: string;
  /** Instructions for the client's model, sent at initialisation. */
  instructions?: string;
  /** The user of every request on this server, when no HTTP authentication supplies one. */
  userId?: string;
  /** Deadline of each tool call in milliseconds. Default: the router's. */
  timeoutMs?: number;
}

/**
 * An MCP server that serves exactly one tool set: `tools/list` returns `toolSet.toMcp()` and
 * `tools/call` runs only those names through `toolSet.call`, so a name the tool set does not
 * expose gets an error result and never executes.
 *
 * Error results come back as `{ isError: true, content: [{ type: "text", text }] }`; progress
 * reports of a tool become MCP progress notifications when the request carries a
 * `progressToken`. Pass a tool set, or a function that returns the tool set of each request's
 * user (HTTP mode). Connect it to any SDK transport (stdio, Streamable HTTP, in-memory).
 *
 * The resources, resource templates, prompts and completions of the MCP servers the request's
 * tools come from (`toolSet.upstreams()`) are served too, named per server like the tools; a URI
 * two servers offer, and a `resource_link` a tool returns, take the `toolroute://SERVER/URI` form,
 * which reads from that server.
 *
 * @example Serve a tool set to an in-process MCP client
 * ```ts
 * import { defineTool, ToolRouter } from "@toolroute/toolroute";
 * import { ToolSetServer } from "@toolroute/toolroute/mcp";
 * import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
 * import { z } from "zod";
 * import { assertEquals } from "@std/assert";
 *
 * const echo = defineTool({
 *   name: "echo",
 *   description: "Echoes text",
 *   input: z.object({ text: z.string() }),
 *   run: ({ text }) => text,
 * });
 * const router = new ToolRouter({ functions: [echo] });
 * const server = new ToolSetServer(await router.expose({ functions: ["echo"] }));
 * const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
 * await server.connect(serverSide);
 * const client = new Client({ name: "example", version: "1.0.0" });
 * await client.connect(clientSide);
 * const { tools } = await client.listTools();
 * assertEquals(tools.map((tool) => tool.name), ["echo"]);
 * const result = await client.callTool({ name: "echo", arguments: { text: "hi" } });
 * assertEquals(result.content, [{ type: "text", text: "hi" }]);
 * await client.close();
 * await server.close();
 * ```
 */
export class ToolSetServer implements AsyncDisposable {
  #server: Server;
  #provide: ToolSetProvider;
  #options: ToolSetServerOptions;
  /** The log level each session set (`logging/setLevel`); the key `""` is a session-less one. */
  #levels = new Map<string, number>();

  /**
   * Creates the server. Throws a `TypeError` when `tools` is neither a tool set nor a function.
   *
   * @param tools The tool set, or a function returning the tool set of each request.
   * @param options Name, version, instructions, fixed user and call deadline.
   */
  constructor(tools: ToolSet | ToolSetProvider, options: ToolSetServerOptions = {}) {
    if (typeof tools === "function") this.#provide = tools;
    else if (tools !== null && typeof tools === "object" && typeof tools.call === "function") {
      this.#provide = () => tools;
    } else {
      throw new TypeError(
        "Cannot create tool set server: pass a tool set from router.expose() or a function returning one",
      );
    }
    this.#options = options;
    const modern = (options as { [ERA]?: ServedEra })[ERA] === "modern";
    this.#server = new Server(
      { name: options.name ?? "toolroute", version: options.version ?? "0.1.0" },
      {
        // Resources, prompts and completions of the servers the request's own tools come from.
        capabilities: {
          tools: { listChanged: true },
          resources: {},
          prompts: {},
          completions: {},
          logging: {},
        },
        instructions: options.instructions,
        // Every list is the request's user's own (2026-07-28 cache hints): never shared.
        cacheHints: {
          "tools/list": { ttlMs: 0, cacheScope: "private" },
          "resources/list": { ttlMs: 0, cacheScope: "private" },
          "resources/templates/list": { ttlMs: 0, cacheScope: "private" },
          "resources/read": { ttlMs: 0, cacheScope: "private" },
          "prompts/list": { ttlMs: 0, cacheScope: "private" },
        },
      },
    );
    SDK_SERVERS.set(this, this.#server);
    this.#server.setRequestHandler("logging/setLevel", (request, ctx) => {
      this.#levels.set(ctx.sessionId ?? "", LEVELS.indexOf(request.params.level));
      return {};
    });
    this.#server.setRequestHandler("tools/list", async (_request, ctx) => {
      const toolSet = await this.#toolSet(handlerExtra(ctx));
      // toMcp() gives what the protocol's tool shape holds; its own type is looser.
      return { tools: toolSet.toMcp() } as ListToolsResult;
    });
    // Resources, prompts and completions: those of the MCP servers the request's own tools come
    // from (see UpstreamFeatures), on the user's own connections.
    const features = async (ctx: ServerContext) => {
      const extra = handlerExtra(ctx);
      return new UpstreamFeatures(await this.#toolSet(extra), extra.signal);
    };
    this.#server.setRequestHandler("resources/list", async (_request, ctx) => {
      return await (await features(ctx)).listResources() as never;
    });
    this.#server.setRequestHandler("resources/templates/list", async (_request, ctx) => {
      return await (await features(ctx)).listTemplates() as never;
    });
    this.#server.setRequestHandler("resources/read", async (request, ctx) => {
      return await (await features(ctx)).read(request.params.uri) as never;
    });
    this.#server.setRequestHandler("prompts/list", async (_request, ctx) => {
      return await (await features(ctx)).listPrompts() as never;
    });
    this.#server.setRequestHandler("prompts/get", async (request, ctx) => {
      return await (await features(ctx)).getPrompt(request.params) as never;
    });
    this.#server.setRequestHandler("completion/complete", async (request, ctx) => {
      return await (await features(ctx)).complete(request.params as never) as never;
    });
    this.#server.setRequestHandler("tools/call", async (request, ctx) => {
      const extra = handlerExtra(ctx);
      const { name, arguments: args, _meta } = request.params;
      let toolSet: ToolSet;
      try {
        toolSet = await this.#toolSet(extra);
      } catch (error) {
        return errorResult((error as Error).message);
      }
      const listed = toolSet.names;
      const runId = servedRunId(_meta, extra.sessionId, { userId: toolSet.userId });
      const capability = this.#server.getClientCapabilities()?.elicitation as ElicitationCapability;
      const options: CallOptions = {
        signal: extra.signal,
        timeoutMs: this.#options.timeoutMs,
        onProgress: progressSender(_meta?.progressToken, extra.sendNotification),
        ...traceOf(_meta, extra.requestId),
        runId,
        // The legacy era asks on this request's stream; the modern one asks in rounds instead
        // (callInRounds puts its own in place of this one).
        onElicitation: capability
          ? (request, signal) => elicit(extra.sendRequest, request, { signal, capability })
          : undefined,
        onLog: (entry) => this.#log(entry, extra.sessionId, extra.sendNotification),
      };
      const call = { name, args: args ?? {}, options };
      const answer = modern
        ? await callInRounds(toolSet, {
          ...call,
          round: {
            inputResponses: ctx.mcpReq.inputResponses,
            requestState: ctx.mcpReq.requestState(),
            capability,
          },
        })
        : await callWithElicitation(toolSet, call, {
          capability,
          extra: extra as unknown as ElicitingExtra,
        });
      if ("resultType" in answer) return answer as unknown as CallToolResult;
      // The call listed more tools (a search, or the first cut result's read_result): tell this
      // client on this request's stream, in both eras, so it lists them (a client that drops
      // the notice sees them on its next tools/list, which lists them from the same tool set).
      if (toolSet.names !== listed) {
        (extra.sendNotification as (n: { method: string }) => Promise<void>)({
          method: "notifications/tools/list_changed",
        }).catch(() => {});
      }
      return callResult(toolSet, name, answer) as CallToolResult;
    });
  }

  /**
   * Connects the server to a transport (an SDK `Transport`: stdio, Streamable HTTP, in-memory).
   *
   * @param transport The transport.
   */
  async connect(transport: unknown): Promise<void> {
    await this.#server.connect(transport as Transport);
  }

  /** Tells the connected client that the tool list changed, so it lists the tools again. */
  async notifyToolListChanged(): Promise<void> {
    await this.#server.sendToolListChanged();
  }

  /** Closes the connection. */
  async close(): Promise<void> {
    await this.#server.close();
  }

  /** Same as {@linkcode ToolSetServer#close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** Relays a tool's log message on the call's stream, at or above the session's level. */
  #log(entry: ToolLogEntry, sessionId: string | undefined, send: unknown): void {
    const level = LEVELS.indexOf(entry.level);
    if (level < 0 || level < (this.#levels.get(sessionId ?? "") ?? 0)) return;
    (send as (notification: unknown) => Promise<void>)({
      method: "notifications/message",
      params: entry,
    }).catch(() => {});
  }

  async #toolSet(
    extra: {
      signal: AbortSignal;
      sessionId?: string;
      authInfo?: { extra?: Record<string, unknown> };
    },
  ): Promise<ToolSet> {
    const fromAuth = extra.authInfo?.extra?.userId;
    const userId = typeof fromAuth === "string" ? fromAuth : this.#options.userId;
    try {
      return await this.#provide({ userId, sessionId: extra.sessionId, signal: extra.signal });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new ProtocolError(ProtocolErrorCode.InternalError, `Cannot list the tools: ${message}`);
    }
  }
}

/**
 * What the handlers read of the SDK's request context, flattened: the signal, session, user,
 * request id, and the senders of notifications and requests related to this request.
 */
function handlerExtra(ctx: ServerContext) {
  return {
    signal: ctx.mcpReq.signal,
    sessionId: ctx.sessionId,
    authInfo: ctx.http?.authInfo,
    requestId: ctx.mcpReq.id,
    sendNotification: ctx.mcpReq.notify,
    sendRequest: ctx.mcpReq.send,
  };
}

function errorResult(text: string): { isError: true; content: { type: "text"; text: string }[] } {
  return { isError: true, content: [{ type: "text", text }] };
}

type SendNotification = (notification: {
  method: "notifications/progress";
  params: { progressToken: string | number; progress: number; total?: number; message?: string };
}) => Promise<void>;

function progressSender(
  token: unknown,
  send: unknown,
): ((progress: ToolProgress) => void) | undefined {
  if (typeof token !== "string" && typeof token !== "number") return undefined;
  let last = -Infinity;
  return (report) => {
    // MCP requires progress to increase with each notification; drop reports that do not.
    if (!(typeof report?.progress === "number" && report.progress > last)) return;
    last = report.progress;
    const params: Parameters<SendNotification>[0]["params"] = {
      progressToken: token,
      progress: report.progress,
    };
    if (typeof report.total === "number") params.total = report.total;
    if (typeof report.message === "string") params.message = report.message;
    (send as SendNotification)({ method: "notifications/progress", params }).catch(() => {});
  };
}

/**
 * The MCP answer for a call: the result's content blocks, `structuredContent` and `isError` as
 * the tool (or upstream server) gave them. A tool that declares an output schema but returned no
 * structured content gets an error result: SDK clients reject such an answer outright.
 */
function callResult(toolSet: ToolSet, name: string, result: ToolCallResult): CallAnswer {
  // A link to a resource of the tool's server names it in the form that reads back through serve.
  const server = toolSet.upstreamOf(name);
  const answer: CallAnswer = {
    content: server === undefined ? result.content : servedLinks(result.content, server.id),
  };
  if (result.structuredContent !== undefined) answer.structuredContent = result.structuredContent;
  if (result.isError) answer.isError = true;
  else if (answer.structuredContent === undefined && declaresOutput(toolSet, name)) {
    return errorResult(
      `Tool "${name}" declares an output schema but returned no structured content`,
    );
  }
  return answer;
}

interface CallAnswer {
  content: unknown[];
  structuredContent?: Record<string, unknown>;
  isError?: true;
  [key: string]: unknown;
}

function declaresOutput(toolSet: ToolSet, name: string): boolean {
  return toolSet.has(name) &&
    toolSet.toMcp().some((entry) => entry.name === name && entry.outputSchema !== undefined);
}

/** The syslog levels, least severe first (MCP `LoggingLevel`). */
const LEVELS: readonly ToolLogEntry["level"][] = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
];

type SendRequest = (
  request: { method: "elicitation/create"; params: Record<string, unknown> },
  options?: { signal?: AbortSignal },
) => Promise<unknown>;

/**
 * Asks the serving client (the person behind the call) for input: MCP form elicitation, or URL
 * elicitation (a link for the person to open) when the request has a `url` and the client
 * declared it; a `url` request to a client without it fails, so the link is never shown as form
 * text the client may pass to the model.
 */
async function elicit(
  send: unknown,
  request: ToolElicitation,
  options: { signal: AbortSignal; capability: ElicitationCapability },
): Promise<ToolElicitationResult> {
  const { signal, capability } = options;
  if (request.url !== undefined && (capability === undefined || capability?.url === undefined)) {
    throw new Error("The MCP client did not declare URL elicitation: it cannot show a link");
  }
  const params = request.url === undefined
    ? { message: request.message, requestedSchema: request.requestedSchema }
    : {
      mode: "url",
      message: request.message,
      url: request.url,
      elicitationId: crypto.randomUUID(),
    };
  const answer = await (send as SendRequest)(
    { method: "elicitation/create", params },
    { signal },
  );
  return answer as ToolElicitationResult;
}

/** The caller's W3C trace context from `_meta` (MCP 2026-07-28), and the request id. */
function traceOf(
  meta: Record<string, unknown> | undefined,
  requestId: string | number,
): { traceparent?: string; tracestate?: string; baggage?: string; toolCallId: string } {
  const { traceparent, tracestate, baggage } = meta ?? {};
  return {
    ...(typeof traceparent === "string" ? { traceparent } : {}),
    ...(typeof tracestate === "string" ? { tracestate } : {}),
    ...(typeof baggage === "string" ? { baggage } : {}),
    toolCallId: String(requestId),
  };
}

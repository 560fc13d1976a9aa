import type { ToolSet } from "../../tool_set.ts";
import {
  type ListToolsResult,
  type ProtocolEra,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerContext,
  serveStdio,
  type Transport,
} from "../mcp_sdk.ts";
import type { ElicitationCapability } from "./approval_elicitation.ts";
import { UpstreamFeatures } from "./upstream_features.ts";
import { LOG_LEVELS, servedCall } from "./_served_call.ts";

const ERA = Symbol("era");
/** The answers that are the request's user's own (2026-07-28 cache hints): never shared. */
const PRIVATE = [
  "tools/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "prompts/list",
];

/** The requests answered by the request's upstream features, and how. */
const FEATURES: [
  string,
  (features: UpstreamFeatures, params: Record<string, unknown>) => Promise<unknown>,
][] = [
  ["resources/list", (features) => features.listResources()],
  ["resources/templates/list", (features) => features.listTemplates()],
  ["resources/read", (features, params) => features.read(String(params.uri))],
  ["prompts/list", (features) => features.listPrompts()],
  ["prompts/get", (features, params) => features.getPrompt(params)],
  ["completion/complete", (features, params) => features.complete(params)],
];
/** The answers that are the request's user's own, as the SDK's cache hints say it. */
const CACHE_HINTS = Object.fromEntries(
  PRIVATE.map((method) => [method, { ttlMs: 0, cacheScope: "private" as const }]),
);
/** The SDK server inside a `ToolSetServer`, for this module only (set in the class's static block). */
let sdkServerOf: (server: ToolSetServer) => Server;

/**
 * The SDK server of a new {@linkcode ToolSetServer} for one era, for the serving entries that
 * make one per request or connection (`createMcpHandler`, `serveStdio`). In the modern era a
 * policy's ask and a tool's question become `input_required` results.
 */
export function toolSetServerForEra(
  tools: ToolSet | ToolSetProvider,
  options: ToolSetServerOptions & { era: ProtocolEra },
): { server: ToolSetServer; sdk: Server } {
  const { era, ...rest } = options;
  const server = new ToolSetServer(tools, { ...rest, [ERA]: era } as ToolSetServerOptions);
  return { server, sdk: sdkServerOf(server) };
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

/**
 * Returns the tool set one MCP request may use: per user in HTTP mode, exposed for that user
 * (`userId: request.userId`); a set of another user fails the request.
 */
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

  // A server is made per request in the 2026-07-28 era: a private field read, not a weak map entry.
  static {
    sdkServerOf = (server) => server.#server;
  }

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
    const modern = (options as { [ERA]?: ProtocolEra })[ERA] === "modern";
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
        cacheHints: CACHE_HINTS,
      },
    );
    this.#server.setRequestHandler("logging/setLevel", (request, ctx) => {
      this.#levels.set(ctx.sessionId ?? "", LOG_LEVELS.indexOf(request.params.level));
      return {};
    });
    this.#server.setRequestHandler("tools/list", async (_request, ctx) => {
      const toolSet = await this.#toolSet(ctx);
      // toMcp() gives what the protocol's tool shape holds; its own type is looser.
      return { tools: toolSet.toMcp() } as ListToolsResult;
    });
    // Resources, prompts and completions: those of the MCP servers the request's own tools come
    // from (see UpstreamFeatures), on the user's own connections.
    for (const [method, answer] of FEATURES) {
      this.#server.setRequestHandler(method as "resources/read", async (request, ctx) => {
        const features = new UpstreamFeatures(await this.#toolSet(ctx), ctx.mcpReq.signal);
        return await answer(features, request.params as Record<string, unknown>) as never;
      });
    }
    this.#server.setRequestHandler(
      "tools/call",
      (request, ctx) =>
        servedCall({ params: request.params, ctx }, {
          toolSet: () => this.#toolSet(ctx),
          modern,
          capability: this.#server.getClientCapabilities()?.elicitation as ElicitationCapability,
          timeoutMs: this.#options.timeoutMs,
          levels: this.#levels,
        }),
    );
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

  async #toolSet(ctx: ServerContext): Promise<ToolSet> {
    const fromAuth = ctx.http?.authInfo?.extra?.userId;
    const userId = typeof fromAuth === "string" ? fromAuth : this.#options.userId;
    const { sessionId, mcpReq: { signal } } = ctx;
    let toolSet: ToolSet;
    try {
      toolSet = await this.#provide({ userId, sessionId, signal });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new ProtocolError(ProtocolErrorCode.InternalError, `Cannot list the tools: ${message}`);
    }
    // Limits, grants, approvals, result handles and hooks all count by the set's user: another
    // user's set would run this request as that user.
    if (userId !== undefined && toolSet.userId !== undefined && toolSet.userId !== userId) {
      throw new ProtocolError(
        ProtocolErrorCode.InternalError,
        "Cannot list the tools: the host gave this request the tool set of another user",
      );
    }
    return toolSet;
  }
}

/** One client connection (stdio) served in whichever MCP era its first message picks. */
export interface ToolSetConnection {
  /** Settles when the connection ends (the client closed its end, or `close`). */
  readonly closed: Promise<void>;
  /** Tells the client that the tool list changed (a listen stream's, in the 2026-07-28 era). */
  notifyToolListChanged(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Serves a tool set on one message connection (stdio) in both MCP eras, through the SDK's
 * `serveStdio`: a first `initialize` pins the connection to the 2025 era, as before; a
 * `server/discover` or a request with the 2026-07-28 envelope pins it to the modern era, where a
 * policy's ask reaches the client as an `input_required` result. The SDK owns the opening rules.
 *
 * @param tools The tool set, or a provider.
 * @param options The server's options and the transport (an SDK `Transport`, never stdio of a
 *   process the SDK opens itself).
 */
export function serveToolSetConnection(
  tools: ToolSet | ToolSetProvider,
  options: ToolSetServerOptions & { transport: unknown },
): ToolSetConnection {
  const { transport, ...serverOptions } = options;
  let current: ToolSetServer | undefined;
  const wire = transport as { onclose?: () => void };
  const handle = serveStdio(({ era }) => {
    const { server, sdk } = toolSetServerForEra(tools, { ...serverOptions, era });
    current = server;
    return sdk;
  }, { transport: transport as never });
  const closed = new Promise<void>((resolve) => {
    // serveStdio sets its own onclose synchronously; both run when the stream ends.
    const own = wire.onclose;
    wire.onclose = () => {
      own?.();
      resolve();
    };
  });
  return {
    closed,
    notifyToolListChanged: async () => await current?.notifyToolListChanged(),
    close: () => handle.close(),
  };
}

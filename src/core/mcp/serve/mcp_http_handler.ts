import type { ToolSet } from "../../tool_set.ts";
import {
  hostAllowed,
  hostRules,
  jsonRpcErrorResponse,
  LOOPBACK_HOSTNAMES,
  originAllowed,
  originRules,
} from "./_request_guard.ts";
import { checkPositive } from "../../check_positive.ts";
import { bearerToken, bearerUsers } from "./bearer_users.ts";
import { boundedBody } from "./_bounded_body.ts";
import { BATCH_MESSAGE, isJsonRpcBatch } from "./json_rpc_batch.ts";
import { corsPreflight, withCors } from "./_cors.ts";
import { McpSessions, type SessionRequest } from "./_mcp_sessions.ts";
import { createMcpHandler, isLegacyRequest, type SdkMcpHandler } from "../mcp_sdk.ts";
import {
  type ToolSetProvider,
  toolSetServerForEra,
  type ToolSetServerOptions,
} from "./tool_set_server.ts";

/** Options of {@linkcode mcpHttpHandler}. */
export interface McpHttpHandlerOptions extends ToolSetServerOptions {
  /**
   * The tool set, or a function returning the tool set of each request's user
   * (`router.expose({ ..., userId: request.userId })`). A set is one user's (its limits, grants,
   * approvals, result handles and hooks count by that user): a fixed set with `tokens` of several
   * users or `authenticate` is a `TypeError`, and a set of another user than the request's fails
   * the request.
   */
  tools: ToolSet | ToolSetProvider;
  /**
   * No 2025 sessions: every POST gets a fresh server (for edge runtimes without session
   * affinity); GET and DELETE answer 405. Default: `false` (sessions kept in memory). The
   * 2026-07-28 era never has sessions.
   */
  stateless?: boolean;
  /** The path served; other paths answer 404. Default: `"/mcp"`. */
  path?: string;
  /**
   * Allowed `Host` values (DNS-rebinding protection); an entry without a port allows any port.
   * Default: `localhost`, `127.0.0.1`, `[::1]`. Others answer 403.
   */
  allowedHosts?: readonly string[];
  /**
   * Allowed `Origin` values; an entry without a port allows any port. Requests without `Origin`
   * pass. Default: `http://` and `https://` on `localhost`, `127.0.0.1`, `[::1]`. Others answer 403.
   */
  allowedOrigins?: readonly string[];
  /**
   * Bearer tokens and the user id each stands for. When given (or `authenticate` is), requests
   * without a known token answer 401. The user id reaches the tool set provider.
   */
  tokens?: Readonly<Record<string, string>>;
  /**
   * Returns the user id of a request (a non-empty string), or `undefined` to answer 401; any
   * other answer (`null`, `false`, `""`, a number) answers 401 too. Runs after `tokens` found
   * nothing (or when there are none).
   */
  authenticate?: (request: Request) => string | undefined | Promise<string | undefined>;
  /**
   * Most sessions kept in all, a bound on memory. Beyond it a new session closes the least
   * recently used session of the same user; a user with none gets a 503 error. Never another
   * user's session. Default: 1000.
   */
  maxSessions?: number;
  /**
   * Most sessions of one user (the token's user; all anonymous requests count as one user).
   * Beyond it the user's least recently used session is closed. Default: 100, at most `maxSessions`.
   */
  maxSessionsPerUser?: number;
  /** Sessions idle this long are closed when a new one starts. Default: 30 minutes. */
  sessionIdleMs?: number;
  /**
   * Answer 2025 requests with JSON instead of an SSE stream (no progress notifications). The
   * 2026-07-28 side answers JSON unless a call sends progress or logs first. Default: `false`.
   */
  jsonResponse?: boolean;
  /**
   * Most bytes of a request's body; a larger one answers 413 and is not read further. Default:
   * 16 MiB (as `toolroute serve --http`).
   */
  maxBodyBytes?: number;
}

/** A web-standard MCP endpoint: a `(request) => Promise<Response>` function with `close()`. */
export interface McpHttpHandler {
  /** Answers one HTTP request. */
  (request: Request): Promise<Response>;
  /** The number of open sessions (always 0 in stateless mode). */
  readonly sessionCount: number;
  /**
   * Tells the clients of open sessions (of one user, or all) that the tool list changed, so they
   * list the tools again. Stateless mode has no sessions to tell.
   */
  notifyToolListChanged(userId?: string): Promise<void>;
  /** Closes every session. */
  close(): Promise<void>;
}

/**
 * Serves a tool set over MCP Streamable HTTP as a web-standard handler (the SDK's
 * `WebStandardStreamableHTTPServerTransport`): use it with Deno's HTTP server, an edge runtime's
 * `fetch` export, or any framework that passes `Request`s.
 *
 * Both MCP eras share the endpoint: a request that claims the 2026-07-28 envelope is answered by
 * the SDK's `createMcpHandler` (one per user; no `initialize`, no session, no `Mcp-Session-Id`; a
 * policy's ask and a tool's question come back as `input_required` results), everything else by
 * the 2025 sessions below (or, with `stateless`, a fresh server per request).
 *
 * Checks, in order: `Host` and `Origin` against the allowlists (403, DNS-rebinding protection),
 * the path (404), the bearer token when `tokens` or `authenticate` is given (401). The user id
 * comes only from the token, never from a header the client picks. In stateful mode a session
 * belongs to the user that opened it. Browser pages of an allowed origin get CORS headers (and
 * `OPTIONS` preflights an answer), so they can read responses and the session id.
 *
 * @example Answer an MCP request without a network
 * ```ts
 * import { defineTool, ToolRouter } from "@toolroute/toolroute";
 * import { mcpHttpHandler } from "@toolroute/toolroute/mcp";
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
 * const handler = mcpHttpHandler({
 *   tools: await router.expose({ functions: ["echo"] }),
 *   stateless: true,
 *   jsonResponse: true,
 * });
 * const response = await handler(
 *   new Request("http://127.0.0.1:8787/mcp", {
 *     method: "POST",
 *     headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
 *     body: JSON.stringify({
 *       jsonrpc: "2.0",
 *       id: 1,
 *       method: "initialize",
 *       params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
 *     }),
 *   }),
 * );
 * assertEquals(response.status, 200);
 * assertEquals((await response.json()).result.serverInfo.name, "toolroute");
 * const evil = await handler(new Request("http://evil.example/mcp", { method: "POST" }));
 * assertEquals(evil.status, 403);
 * await evil.body?.cancel();
 * await handler.close();
 * ```
 *
 * @param options The tools, mode, allowlists and authentication.
 * @returns The handler.
 */
export function mcpHttpHandler(options: McpHttpHandlerOptions): McpHttpHandler {
  const { tools, path = "/mcp", stateless = false, jsonResponse = false } = options;
  // Parsed once: a request is checked against the rules, not the entries' text.
  const allowedHosts = hostRules(options.allowedHosts ?? LOOPBACK_HOSTNAMES);
  const allowedOrigins = originRules(
    options.allowedOrigins ??
      LOOPBACK_HOSTNAMES.flatMap((host) => [`http://${host}`, `https://${host}`]),
  );
  for (
    const name of ["maxSessions", "maxSessionsPerUser", "sessionIdleMs", "maxBodyBytes"] as const
  ) {
    checkPositive(options[name], name, { where: "Cannot create MCP handler" });
  }
  const maxSessions = options.maxSessions ?? 1000;
  const maxSessionsPerUser = Math.min(options.maxSessionsPerUser ?? 100, maxSessions);
  const sessionIdleMs = options.sessionIdleMs ?? 30 * 60_000;
  const maxBodyBytes = options.maxBodyBytes ?? 16 * 1024 * 1024;
  const authRequired = options.tokens !== undefined || options.authenticate !== undefined;
  checkOneUserOfFixedSet(options);
  const usersOfTokens = options.tokens === undefined ? undefined : bearerUsers(options.tokens);
  const { name, version, instructions, userId, timeoutMs } = options;
  const serverOptions: ToolSetServerOptions = { name, version, instructions, userId, timeoutMs };
  const sessions = new McpSessions(tools, serverOptions, {
    maxSessions,
    maxSessionsPerUser,
    sessionIdleMs,
    jsonResponse,
    stateless,
  });
  const modern = modernEndpoint(tools, serverOptions);

  async function authenticate(request: Request): Promise<string | undefined> {
    const token = bearerToken(request);
    if (token !== undefined && usersOfTokens !== undefined) {
      const userId = await usersOfTokens(token);
      if (userId !== undefined) return userId;
    }
    const user: unknown = await options.authenticate?.(request);
    // Only a user id authenticates: a JavaScript host's `null` or `false` for "no such token"
    // (or an id that is not a string) fell back to the handler's `userId`, so a request with no
    // token at all ran as that user.
    return typeof user === "string" && user !== "" ? user : undefined;
  }

  const handler = async (request: Request): Promise<Response> => {
    if (!hostAllowed(request, allowedHosts)) {
      return jsonRpcErrorResponse(403, "Forbidden: the Host header is not allowed");
    }
    if (!originAllowed(request, allowedOrigins)) {
      return jsonRpcErrorResponse(403, "Forbidden: the Origin header is not allowed");
    }
    const origin = request.headers.get("origin");
    if (new URL(request.url).pathname !== path) {
      return withCors(jsonRpcErrorResponse(404, `Not found; the MCP endpoint is ${path}`), origin);
    }
    if (request.method === "OPTIONS" && origin !== null) return corsPreflight(origin);
    return withCors(await answer(request), origin);
  };

  async function answer(received: Request): Promise<Response> {
    const user = authRequired ? await authenticate(received) : userId;
    if (authRequired && user === undefined) {
      await received.body?.cancel().catch(() => {});
      return jsonRpcErrorResponse(401, "Unauthorized: send a valid bearer token", {
        headers: { "www-authenticate": 'Bearer realm="toolroute"' },
      });
    }
    let text: string | undefined;
    try {
      text = await boundedBody(received, maxBodyBytes);
    } catch {
      return jsonRpcErrorResponse(400, "Parse error: the request body could not be read", {
        code: -32700,
      });
    }
    if (text === undefined) {
      return jsonRpcErrorResponse(
        413,
        `Payload too large: the body is over ${maxBodyBytes} bytes; send less, or raise maxBodyBytes`,
      );
    }
    if (received.method === "POST" && isJsonRpcBatch(text)) {
      // -32600 (invalid request): MCP 2025-06-18 removed batches.
      return jsonRpcErrorResponse(400, BATCH_MESSAGE, { code: -32600 });
    }
    // The body is read and parsed once, here: the era check and the SDK's transports take the
    // parsed message. One that does not parse goes on as text, for the SDK's own error answer.
    const body = parseJson(text);
    const request = body === undefined && received.body !== null
      ? new Request(received, { body: text })
      : received;
    const auth = user === undefined
      ? undefined
      : { token: "", clientId: user, scopes: [], extra: { userId: user } };
    // The SDK's own classification: a request that claims the 2026-07-28 envelope (or a modern
    // protocol-version header) is the modern side's, even when that side must refuse it.
    if (!(await isLegacyRequest(request, body?.message))) {
      return await modern.handle(request, { userId: user, authInfo: auth, body });
    }
    return await sessions.handle(request, { userId: user, authInfo: auth, body });
  }
  return Object.defineProperties(handler, {
    sessionCount: { get: () => sessions.size },
    close: { value: async () => void await Promise.all([sessions.close(), modern.close()]) },
    notifyToolListChanged: {
      value: async (userId?: string) => {
        modern.notifyToolListChanged(userId);
        await sessions.notifyToolListChanged(userId);
      },
    },
  }) as McpHttpHandler;
}

/** A body's JSON message, or `undefined` for a body that is empty or no JSON. */
function parseJson(text: string): { message: unknown } | undefined {
  if (text === "") return undefined;
  try {
    return { message: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

/** Users whose endpoint is kept; past it the least recently used one is let go. */
const KEPT_USERS = 4096;

/**
 * The 2026-07-28 side of `serve`'s HTTP endpoint: no session and no `initialize`; every request
 * is answered by a fresh server from the SDK's `createMcpHandler` (`legacy: "reject"`: 2025
 * traffic is routed elsewhere before it gets here). Answers are JSON unless the call sends progress
 * or logs first (then SSE). Each user has an endpoint of their own, so a
 * `subscriptions/listen` stream hears only its own user's tool-list changes. An endpoint let go
 * (past 4096 users) is not closed: its calls finish, its listen streams stop hearing changes
 * until the client listens again.
 */
function modernEndpoint(
  tools: ToolSet | ToolSetProvider,
  serverOptions: ToolSetServerOptions,
): {
  handle(request: Request, about: SessionRequest): Promise<Response>;
  notifyToolListChanged(userId?: string): void;
  close(): Promise<void>;
} {
  // Kept in order of use: the first entry is the least recently used.
  const byUser = new Map<string, SdkMcpHandler>();
  const handlerOf = (key: string): SdkMcpHandler => {
    const handler = byUser.get(key) ?? createMcpHandler(
      () => toolSetServerForEra(tools, { ...serverOptions, era: "modern" }).sdk,
      // The SDK's "auto" answers JSON unless the call sends something first (progress, logs);
      // its "json" mode prints a warning per handler, and library code prints nothing.
      { legacy: "reject" },
    );
    byUser.delete(key);
    byUser.set(key, handler);
    if (byUser.size > KEPT_USERS) byUser.delete(byUser.keys().next().value!);
    return handler;
  };
  return {
    handle: (request, { userId, authInfo, body }) =>
      handlerOf(userId ?? "").fetch(request, {
        authInfo: authInfo as never,
        ...(body === undefined ? {} : { parsedBody: body.message }),
      }),
    notifyToolListChanged(userId) {
      const targets = userId === undefined ? byUser.values() : [byUser.get(userId)];
      for (const handler of targets) handler?.notify.toolsChanged();
    },
    // Ends every in-flight exchange and listen stream.
    async close() {
      const open = [...byUser.values()];
      byUser.clear();
      await Promise.allSettled(open.map((handler) => handler.close()));
    },
  };
}

/**
 * A tool set is one user's: its limits, grants, approvals, result handles and hooks count by the
 * user it was exposed for. A fixed set served to several authenticated users would make them one
 * principal (one user's "always" another's grant, one user's calls another's limit).
 */
function checkOneUserOfFixedSet(options: McpHttpHandlerOptions): void {
  if (typeof options.tools === "function") return;
  const users = new Set(Object.values(options.tokens ?? {}));
  if (options.authenticate === undefined && users.size <= 1) return;
  throw new TypeError(
    "Cannot create MCP handler: a tool set is one user's, and these tokens (or authenticate) " +
      "name several users; pass a function returning each request's user's set: " +
      "tools: (request) => router.expose({ ..., userId: request.userId })",
  );
}

import { jsonRpcErrorResponse } from "./_request_guard.ts";
import { closeWhenDone } from "./_close_when_done.ts";
import { WebStandardStreamableHTTPServerTransport } from "../mcp_sdk.ts";
import {
  type ToolSetProvider,
  ToolSetServer,
  type ToolSetServerOptions,
} from "./tool_set_server.ts";
import type { ToolSet } from "../../tool_set.ts";

// What a request handler of the SDK's transport gets besides the request.
type HandleOptions = Parameters<
  WebStandardStreamableHTTPServerTransport["handleRequest"]
>[1];

interface Session {
  server: ToolSetServer;
  transport: WebStandardStreamableHTTPServerTransport;
  userId?: string;
  lastUsed: number;
}

/** Who sends a request, and its body as the handler parsed it (`undefined`: none, or no JSON). */
export interface SessionRequest {
  userId: string | undefined;
  authInfo: unknown;
  body: { message: unknown } | undefined;
}

/** Limits and mode of {@linkcode McpSessions}, as `McpHttpHandlerOptions` describes them. */
export interface McpSessionLimits {
  maxSessions: number;
  maxSessionsPerUser: number;
  sessionIdleMs: number;
  jsonResponse: boolean;
  stateless: boolean;
}

/** Session ids closed to make room, remembered (this many) for a clear 404. */
const REMEMBERED_EVICTIONS = 1024;

/**
 * The sessions of a stateful MCP HTTP endpoint: one server and transport per session, bound to
 * the user that opened it. A user beyond its own limit, or beyond the global one, loses its own
 * least recently used session, never another user's; a user with no session when the server is
 * full gets a 503 error. Sessions idle longer than the idle limit are closed for everyone. In
 * stateless mode there are none: each POST gets its own server.
 */
export class McpSessions {
  #sessions = new Map<string, Session>();
  #pending = new Map<string, number>();
  #evicted = new Map<string, string>();
  #tools: ToolSet | ToolSetProvider;
  #serverOptions: ToolSetServerOptions;
  #limits: McpSessionLimits;

  constructor(
    tools: ToolSet | ToolSetProvider,
    serverOptions: ToolSetServerOptions,
    limits: McpSessionLimits,
  ) {
    this.#tools = tools;
    this.#serverOptions = serverOptions;
    this.#limits = limits;
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** Answers a request: on its session, or by opening one (an `initialize` POST). */
  async handle(request: Request, about: SessionRequest): Promise<Response> {
    const { userId, authInfo, body } = about;
    const sessionId = request.headers.get("mcp-session-id");
    // A parsed body is handed on: the transport then reads no copy of it.
    const options =
      (body === undefined ? { authInfo } : { authInfo, parsedBody: body.message }) as HandleOptions;
    if (this.#limits.stateless) {
      if (request.method !== "POST") {
        return jsonRpcErrorResponse(405, "Method not allowed; this stateless server takes POST", {
          headers: { allow: "POST" },
        });
      }
      return await this.#answerFresh(request, options, userId);
    }
    if (sessionId !== null) {
      const session = this.#sessions.get(sessionId);
      if (session === undefined || session.userId !== userId) {
        const evicted = this.#evicted.get(sessionId);
        return jsonRpcErrorResponse(
          404,
          evicted !== undefined && evicted === (userId ?? "")
            ? "Session not found: it was closed because its user opened more sessions than allowed; initialize a new session"
            : "Session not found; initialize a new session",
        );
      }
      session.lastUsed = Date.now();
      this.#sessions.delete(sessionId);
      this.#sessions.set(sessionId, session);
      return await session.transport.handleRequest(request, options);
    }
    if (request.method !== "POST") {
      return jsonRpcErrorResponse(400, "Missing Mcp-Session-Id header; initialize a session first");
    }
    if (surelyNoInitialize(body)) {
      // It opens no session (the transport answers 400): it must not close the user's own.
      return await this.#answerFresh(request, options, userId, () => crypto.randomUUID());
    }
    const key = userId ?? "";
    if (!this.#makeRoom(key)) {
      return jsonRpcErrorResponse(
        503,
        `Too many sessions: the server holds its maximum of ${this.#limits.maxSessions} open sessions of other users; close unused sessions or try again later`,
        { headers: { "retry-after": "60" } },
      );
    }
    // Counted until the transport has answered: concurrent initializes cannot pass the limits.
    this.#pending.set(key, (this.#pending.get(key) ?? 0) + 1);
    try {
      return await this.#answerFresh(request, options, userId, () => crypto.randomUUID());
    } finally {
      const left = (this.#pending.get(key) ?? 1) - 1;
      if (left === 0) this.#pending.delete(key);
      else this.#pending.set(key, left);
    }
  }

  /** Sends `notifications/tools/list_changed` to the open sessions of one user, or all. */
  async notifyToolListChanged(userId?: string): Promise<void> {
    const targets = [...this.#sessions.values()].filter((session) =>
      userId === undefined || session.userId === userId
    );
    await Promise.allSettled(targets.map((session) => session.server.notifyToolListChanged()));
  }

  async close(): Promise<void> {
    const open = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.allSettled(open.map((session) => session.server.close()));
  }

  /**
   * Answers on a fresh server and transport. Without a session (stateless, or a request that is
   * not an `initialize`) nothing keeps the server: it closes once its response is read.
   */
  async #answerFresh(
    request: Request,
    options: HandleOptions,
    userId: string | undefined,
    sessionIdGenerator?: () => string,
  ): Promise<Response> {
    const server = new ToolSetServer(this.#tools, this.#serverOptions);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator,
      enableJsonResponse: this.#limits.jsonResponse,
      onsessioninitialized: (id: string) => void this.#sessions.set(id, session),
      onsessionclosed: (id: string) => void this.#sessions.delete(id),
    });
    const session: Session = { server, transport, userId, lastUsed: Date.now() };
    transport.onclose = () => {
      if (transport.sessionId !== undefined) this.#sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    let response: Response;
    try {
      response = await transport.handleRequest(request, options);
    } catch (error) {
      await server.close();
      throw error;
    }
    return transport.sessionId === undefined
      ? closeWhenDone(response, () => server.close())
      : response;
  }

  /**
   * Closes idle sessions, then the user's own least recently used ones until a new session of the
   * user fits both limits. Returns `false` when only other users' sessions fill the server.
   */
  #makeRoom(key: string): boolean {
    const now = Date.now();
    for (const [id, session] of this.#sessions) {
      if (now - session.lastUsed > this.#limits.sessionIdleMs) this.#close(id, session, false);
    }
    const own = [...this.#sessions].filter(([, session]) => (session.userId ?? "") === key);
    const pendingOwn = this.#pending.get(key) ?? 0;
    let pendingAll = 0;
    for (const count of this.#pending.values()) pendingAll += count;
    const fits = () =>
      own.length + pendingOwn < this.#limits.maxSessionsPerUser &&
      this.#sessions.size + pendingAll < this.#limits.maxSessions;
    // Least recently used first: the map is kept in order of use.
    while (own.length > 0 && !fits()) {
      const [id, session] = own.shift()!;
      this.#close(id, session, true);
    }
    return fits();
  }

  #close(id: string, session: Session, evicted: boolean): void {
    this.#sessions.delete(id);
    if (evicted) {
      this.#evicted.set(id, session.userId ?? "");
      if (this.#evicted.size > REMEMBERED_EVICTIONS) {
        this.#evicted.delete(this.#evicted.keys().next().value!);
      }
    }
    void session.server.close().catch(() => {});
  }
}

/**
 * Whether a POST body is one JSON-RPC message whose method is not `initialize` (as the transport
 * decodes it). Anything else may open a session and is counted.
 */
function surelyNoInitialize(body: { message: unknown } | undefined): boolean {
  const message = body?.message as { method?: unknown } | null | undefined;
  return message !== null && typeof message === "object" && !Array.isArray(message) &&
    message.method !== "initialize";
}

import { jsonRpcErrorResponse } from "./_request_guard.ts";
import { WebStandardStreamableHTTPServerTransport } from "../mcp_sdk.ts";
import {
  type ToolSetProvider,
  ToolSetServer,
  type ToolSetServerOptions,
} from "./tool_set_server.ts";
import type { ToolSet } from "../../tool_set.ts";

interface Session {
  server: ToolSetServer;
  transport: WebStandardStreamableHTTPServerTransport;
  userId?: string;
  lastUsed: number;
}

/** Limits of {@linkcode McpSessions}. */
export interface McpSessionLimits {
  /** Most sessions kept; the least recently used is closed beyond it. */
  maxSessions: number;
  /** Sessions idle this long are closed when a new one starts. */
  sessionIdleMs: number;
  /** Answer JSON instead of SSE streams. */
  jsonResponse: boolean;
}

/**
 * The sessions of a stateful MCP HTTP endpoint: one server and transport per session, bound to
 * the user that opened it, closed least-recently-used first beyond the limit.
 */
export class McpSessions {
  #sessions = new Map<string, Session>();
  #tools: ToolSet | ToolSetProvider;
  #serverOptions: ToolSetServerOptions;
  #limits: McpSessionLimits;

  /**
   * @param tools The tool set or provider each session serves.
   * @param serverOptions The servers' options.
   * @param limits Session limits.
   */
  constructor(
    tools: ToolSet | ToolSetProvider,
    serverOptions: ToolSetServerOptions,
    limits: McpSessionLimits,
  ) {
    this.#tools = tools;
    this.#serverOptions = serverOptions;
    this.#limits = limits;
  }

  /** The number of open sessions. */
  get size(): number {
    return this.#sessions.size;
  }

  /**
   * Answers a request: on its session, or by opening one (an `initialize` POST).
   *
   * @param request The request.
   * @param userId The authenticated user.
   * @param authInfo What reaches the server's handlers.
   * @returns The response.
   */
  async handle(request: Request, userId: string | undefined, authInfo: unknown): Promise<Response> {
    const sessionId = request.headers.get("mcp-session-id");
    const options = { authInfo } as Parameters<
      WebStandardStreamableHTTPServerTransport["handleRequest"]
    >[1];
    if (sessionId !== null) {
      const session = this.#sessions.get(sessionId);
      if (session === undefined || session.userId !== userId) {
        return jsonRpcErrorResponse(404, "Session not found; initialize a new session");
      }
      session.lastUsed = Date.now();
      this.#sessions.delete(sessionId);
      this.#sessions.set(sessionId, session);
      return await session.transport.handleRequest(request, options);
    }
    if (request.method !== "POST") {
      return jsonRpcErrorResponse(400, "Missing Mcp-Session-Id header; initialize a session first");
    }
    const session = await this.#open(userId);
    const response = await session.transport.handleRequest(request, options);
    // Not an initialize request: no session was created, so nothing keeps this server.
    if (session.transport.sessionId === undefined) await session.server.close();
    return response;
  }

  /**
   * Sends `notifications/tools/list_changed` to the open sessions: those of one user, or all.
   *
   * @param userId Only this user's sessions; all sessions when absent.
   */
  async notifyToolListChanged(userId?: string): Promise<void> {
    const targets = [...this.#sessions.values()].filter((session) =>
      userId === undefined || session.userId === userId
    );
    await Promise.allSettled(targets.map((session) => session.server.notifyToolListChanged()));
  }

  /** Closes every session. */
  async close(): Promise<void> {
    const open = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.allSettled(open.map((session) => session.server.close()));
  }

  async #open(userId: string | undefined): Promise<Session> {
    this.#evict();
    const server = new ToolSetServer(this.#tools, this.#serverOptions);
    const sessions = this.#sessions;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      enableJsonResponse: this.#limits.jsonResponse,
      onsessioninitialized: (id: string) => void sessions.set(id, session),
      onsessionclosed: (id: string) => void sessions.delete(id),
    });
    const session: Session = { server, transport, userId, lastUsed: Date.now() };
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return session;
  }

  #evict(): void {
    const now = Date.now();
    for (const [id, session] of this.#sessions) {
      const idle = now - session.lastUsed > this.#limits.sessionIdleMs;
      if (!idle && this.#sessions.size < this.#limits.maxSessions) continue;
      this.#sessions.delete(id);
      void session.server.close().catch(() => {});
    }
  }
}

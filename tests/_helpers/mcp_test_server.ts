/**
 * Real SDK MCP servers on 127.0.0.1 for tests: a stateful Streamable HTTP server built from the
 * SDK's `WebStandardStreamableHTTPServerTransport` on `Deno.serve`, one `McpServer` per session.
 *
 * Reusable by every test that needs a remote server. Needs `allow-net` for 127.0.0.1.
 *
 * @module
 */

import { WebStandardStreamableHTTPServerTransport } from "../../src/core/mcp/mcp_sdk.ts";
import { McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";

/** Registers tools on a fresh `McpServer` (called once per session). */
export type RegisterTools = (server: McpServer, context: TestServerContext) => void;

/** What a tool registrar can read about its session. */
export interface TestServerContext {
  /** The headers of the request that initialised this session. */
  readonly initHeaders: Headers;
}

/** Options of {@linkcode startMcpTestServer}. */
export interface TestServerOptions {
  /** Registers the tools; default: {@linkcode standardTools}. */
  tools?: RegisterTools;
  /** The server name in `initialize`. */
  name?: string;
  /** Answers with JSON instead of SSE streams. */
  jsonResponse?: boolean;
  /** Port to listen on; default: any free one. */
  port?: number;
  /** Sees every request first; a returned response short-circuits the MCP transport. */
  intercept?: (request: Request) => Response | undefined | Promise<Response | undefined>;
}

/** A running test server. */
export interface TestServer {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  /** The port. */
  readonly port: number;
  /** Headers of every request received, in order. */
  readonly headersSeen: Headers[];
  /** Number of sessions initialised so far. */
  readonly sessionsStarted: number;
  /** Forgets every session (the next request with an old session id gets 404). */
  expireSessions(): Promise<void>;
  /** Stops listening and closes every session. */
  close(): Promise<void>;
  /** Starts again on the same port with no sessions. */
  restart(): Promise<void>;
  /** Sends `notifications/tools/list_changed` after running `change` on every session's server. */
  changeTools(change: (server: McpServer) => void): Promise<void>;
}

/**
 * The standard tools: `echo {text}`, `add {a,b}`, `sleep {ms}` (answers after `ms`, aborts with the
 * request), `big {chars}` (a result of `chars` characters), `whoami` (the `authorization` header
 * of the session's initialize request).
 *
 * @param server The server to register on.
 * @param context The session context.
 */
export function standardTools(server: McpServer, context: TestServerContext): void {
  server.registerTool("echo", {
    description: "Echoes text",
    inputSchema: z.object({ text: z.string() }),
  }, ({ text }) => ({ content: [{ type: "text", text }] }));
  server.registerTool("add", {
    description: "Adds two numbers",
    inputSchema: z.object({ a: z.number(), b: z.number() }),
  }, ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }));
  server.registerTool("sleep", {
    description: "Answers after a delay",
    inputSchema: z.object({ ms: z.number() }),
  }, ({ ms }, extra) =>
    new Promise((resolve) => {
      const timer = setTimeout(() => resolve({ content: [{ type: "text", text: "slept" }] }), ms);
      extra.mcpReq.signal.addEventListener("abort", () => {
        clearTimeout(timer);
        resolve({ content: [{ type: "text", text: "cancelled" }] });
      });
    }));
  server.registerTool("big", {
    description: "A large result",
    inputSchema: z.object({ chars: z.number() }),
  }, ({ chars }) => ({ content: [{ type: "text", text: "x".repeat(chars) }] }));
  server.registerTool("whoami", {
    description: "The authorization header of this session",
    inputSchema: z.object({}),
  }, () => ({
    content: [{ type: "text", text: context.initHeaders.get("authorization") ?? "anonymous" }],
  }));
}

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  server: McpServer;
}

/**
 * Starts a stateful Streamable HTTP MCP server on 127.0.0.1.
 *
 * @param options Tools, name, response mode, port and interceptor.
 * @returns The running server; close it in the test.
 */
export function startMcpTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const register = options.tools ?? standardTools;
  const sessions = new Map<string, Session>();
  const headersSeen: Headers[] = [];
  let sessionsStarted = 0;
  let port = options.port ?? 0;
  let http: Deno.HttpServer | undefined;

  const handle = async (request: Request): Promise<Response> => {
    headersSeen.push(request.headers);
    const intercepted = await options.intercept?.(request);
    if (intercepted !== undefined) return intercepted;
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId !== null) {
      const session = sessions.get(sessionId);
      if (session === undefined) {
        return Response.json({
          jsonrpc: "2.0",
          error: { code: -32001, message: "Session not found" },
          id: null,
        }, { status: 404 });
      }
      return await session.transport.handleRequest(request);
    }
    const server = new McpServer({ name: options.name ?? "test-server", version: "1.0.0" }, {
      capabilities: { tools: { listChanged: true } },
    });
    register(server, { initHeaders: request.headers });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      enableJsonResponse: options.jsonResponse,
      onsessioninitialized: (id) => {
        sessionsStarted++;
        sessions.set(id, { transport, server });
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    await server.connect(transport);
    return await transport.handleRequest(request);
  };

  const listen = () => {
    http = Deno.serve({ port, hostname: "127.0.0.1", onListen: () => {} }, handle);
    port = (http.addr as Deno.NetAddr).port;
  };
  const closeSessions = async () => {
    const all = [...sessions.values()];
    sessions.clear();
    await Promise.allSettled(all.map((session) => session.server.close()));
  };
  const stop = async () => {
    await closeSessions();
    if (http !== undefined) {
      const running = http;
      http = undefined;
      await running.shutdown();
    }
  };
  listen();
  return Promise.resolve({
    get url() {
      return `http://127.0.0.1:${port}/mcp`;
    },
    get port() {
      return port;
    },
    headersSeen,
    get sessionsStarted() {
      return sessionsStarted;
    },
    expireSessions: closeSessions,
    close: stop,
    async restart() {
      await stop();
      listen();
    },
    async changeTools(change) {
      for (const session of sessions.values()) change(session.server);
      await Promise.all(
        [...sessions.values()].map((session) => session.server.sendToolListChanged()),
      );
    },
  });
}

/** A test server running in its own process. */
export interface SpawnedTestServer {
  /** The MCP endpoint. */
  readonly url: string;
  /** Kills the process at once (a crash). */
  kill(): Promise<void>;
  /** Stops the process cleanly. */
  close(): Promise<void>;
}

/**
 * Starts `mcp_test_server_main.ts` (standard tools) in a child process, so client and server
 * costs are apart and the server can crash. Needs `allow-run`.
 *
 * @param args Extra arguments: `--json`, `--port=N`.
 * @returns The running server.
 */
export async function spawnMcpTestServer(args: string[] = []): Promise<SpawnedTestServer> {
  const main = decodeURIComponent(new URL("./mcp_test_server_main.ts", import.meta.url).pathname);
  const config = decodeURIComponent(new URL("../../deno.json", import.meta.url).pathname);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", "--config", config, "--allow-net=127.0.0.1", main, ...args],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let first = "";
  while (!first.includes("\n")) {
    const { value, done } = await lines.read();
    if (done) throw new Error("The test server process ended before printing its URL");
    first += value;
  }
  let ended = false;
  const end = async (kill: boolean) => {
    if (ended) return;
    ended = true;
    if (kill) child.kill("SIGKILL");
    else await child.stdin.close().catch(() => {});
    await lines.cancel().catch(() => {});
    await child.status;
    if (kill) await child.stdin.close().catch(() => {});
  };
  return { url: first.trim(), kill: () => end(true), close: () => end(false) };
}

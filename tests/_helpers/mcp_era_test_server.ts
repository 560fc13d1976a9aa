/**
 * MCP servers of the 2026-07-28 era on 127.0.0.1 for tests: the SDK 2.x `createMcpHandler` on
 * `Deno.serve`, modern-only (`legacy: "reject"`) or dual-era (`legacy: "stateless"`, which also
 * answers 2025 clients, one stateless instance per request). Every JSON-RPC method received is
 * recorded, so a test can assert what went over the wire.
 *
 * @module
 */

import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";

/** Registers tools on a fresh server; `request` is the HTTP request it serves. */
export type RegisterEraTools = (server: McpServer, request: Request | undefined) => void;

/** Options of {@linkcode startEraTestServer}. */
export interface EraTestServerOptions {
  /** `"reject"`: modern-only; `"stateless"`: both eras. */
  legacy: "reject" | "stateless";
  /** Registers the tools; default: {@linkcode eraTools}. */
  tools?: RegisterEraTools;
}

/** A running server. */
export interface EraTestServer {
  /** The MCP endpoint. */
  readonly url: string;
  /** The JSON-RPC methods received, in order (`server/discover`, `initialize`, `tools/call`...). */
  readonly methods: string[];
  /** The headers of every HTTP request received, in order. */
  readonly headersSeen: Headers[];
  /** Stops the server. */
  close(): Promise<void>;
}

/**
 * The tools: `echo {text}`, `whoami` (the `authorization` header of the request that carried the
 * call), `sleep {ms}`.
 *
 * @param server The server.
 * @param request The HTTP request the instance serves.
 */
export function eraTools(server: McpServer, request: Request | undefined): void {
  server.registerTool("echo", {
    description: "Echoes text",
    inputSchema: z.object({ text: z.string() }),
  }, ({ text }) => ({ content: [{ type: "text", text }] }));
  server.registerTool("whoami", {
    description: "The authorization header of this request",
    inputSchema: z.object({}),
  }, () => ({
    content: [{ type: "text", text: request?.headers.get("authorization") ?? "anonymous" }],
  }));
  server.registerTool(
    "sleep",
    {
      description: "Answers after a delay",
      inputSchema: z.object({ ms: z.number() }),
    },
    ({ ms }) =>
      new Promise((resolve) =>
        setTimeout(() => resolve({ content: [{ type: "text", text: "slept" }] }), ms)
      ),
  );
}

/**
 * Starts a server on 127.0.0.1.
 *
 * @param options Era mode and tools.
 * @returns The running server.
 */
export function startEraTestServer(options: EraTestServerOptions): EraTestServer {
  const register = options.tools ?? eraTools;
  const handler = createMcpHandler((ctx) => {
    const server = new McpServer({ name: "era-test", version: "1.0.0" });
    register(server, ctx.requestInfo);
    return server;
  }, { legacy: options.legacy });
  const methods: string[] = [];
  const headersSeen: Headers[] = [];
  const http = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: () => {} },
    async (request) => {
      headersSeen.push(request.headers);
      if (request.method === "POST") {
        const body = await request.clone().text();
        try {
          const parsed = JSON.parse(body);
          for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
            if (typeof message?.method === "string") methods.push(message.method);
          }
        } catch {
          // Not JSON: the handler answers it.
        }
      }
      return await handler.fetch(request);
    },
  );
  const port = (http.addr as Deno.NetAddr).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    methods,
    headersSeen,
    async close() {
      await handler.close();
      await http.shutdown();
    },
  };
}

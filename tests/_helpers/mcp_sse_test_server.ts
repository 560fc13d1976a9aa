/**
 * An MCP server that speaks only the old HTTP+SSE transport (protocol 2024-11-05): `GET /sse`
 * opens the event stream and announces the `endpoint`, `POST /messages?sessionId=…` carries the
 * client's messages. A POST to `/sse` (a Streamable HTTP attempt) gets 405, as old servers answer.
 * Built on `Deno.serve` with the SDK's `McpServer`; the SDK's own SSE server transport needs
 * Node's HTTP objects, so this one is web-standard.
 *
 * @module
 */

import { parseJSONRPCMessage, type Transport } from "../../src/core/mcp/mcp_sdk.ts";
import { McpServer } from "@modelcontextprotocol/server";
import { type RegisterTools, standardTools } from "./mcp_test_server.ts";

class WebSseServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport["onmessage"];
  sessionId: string = crypto.randomUUID();
  #encoder = new TextEncoder();
  #closed = false;

  constructor(private controller: ReadableStreamDefaultController<Uint8Array>) {}

  start(): Promise<void> {
    this.#write(`event: endpoint\ndata: /messages?sessionId=${this.sessionId}\n\n`);
    return Promise.resolve();
  }

  send(message: unknown): Promise<void> {
    this.#write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    return Promise.resolve();
  }

  close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      try {
        this.controller.close();
      } catch {
        // Already closed by the client.
      }
      this.onclose?.();
    }
    return Promise.resolve();
  }

  receive(body: unknown): void {
    this.onmessage?.(parseJSONRPCMessage(body));
  }

  #write(text: string): void {
    if (!this.#closed) this.controller.enqueue(this.#encoder.encode(text));
  }
}

/** A running SSE-only server. */
export interface SseTestServer {
  /** The `/sse` URL to configure. */
  readonly url: string;
  /** Stops it. */
  close(): Promise<void>;
}

/**
 * Starts an SSE-only MCP server on 127.0.0.1.
 *
 * @param tools Registers the tools; default: the standard tools.
 * @returns The running server.
 */
export function startSseTestServer(tools: RegisterTools = standardTools): Promise<SseTestServer> {
  const sessions = new Map<string, { transport: WebSseServerTransport; server: McpServer }>();
  const http = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    if (url.pathname === "/sse" && req.method === "GET") {
      let transport!: WebSseServerTransport;
      const body = new ReadableStream<Uint8Array>({
        start: (controller) => {
          transport = new WebSseServerTransport(controller);
        },
        cancel: () => void sessions.get(transport.sessionId)?.server.close(),
      });
      const server = new McpServer({ name: "sse-only", version: "1.0.0" });
      tools(server, { initHeaders: req.headers });
      sessions.set(transport.sessionId, { transport, server });
      transport.onclose = () => sessions.delete(transport.sessionId);
      await server.connect(transport);
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    }
    if (url.pathname === "/messages" && req.method === "POST") {
      const session = sessions.get(url.searchParams.get("sessionId") ?? "");
      if (session === undefined) return new Response("unknown session", { status: 404 });
      session.transport.receive(await req.json());
      return new Response("Accepted", { status: 202 });
    }
    await req.body?.cancel();
    return new Response("Method Not Allowed", { status: 405 });
  });
  const port = (http.addr as Deno.NetAddr).port;
  return Promise.resolve({
    url: `http://127.0.0.1:${port}/sse`,
    async close() {
      await Promise.allSettled([...sessions.values()].map((s) => s.server.close()));
      await http.shutdown();
    },
  });
}

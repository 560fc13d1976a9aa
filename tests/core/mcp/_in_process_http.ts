/**
 * Real SDK MCP servers answered in-process through a fetch function: Streamable HTTP through the
 * SDK's `WebStandardStreamableHTTPServerTransport`, and the older HTTP+SSE transport through a
 * small bridge (GET opens the event stream, POSTs are forwarded to an in-memory SDK server). No
 * network, no permissions: hand `fetch` to a client transport.
 *
 * @module
 */

import { WebStandardStreamableHTTPServerTransport } from "../../../src/core/mcp/mcp_sdk.ts";
import { InMemoryTransport, type McpServer } from "@modelcontextprotocol/server";

/** One request the server received. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: Headers;
  body: string;
  /** Settles once the client has read the response body to its end (or cancelled it). */
  answered: Promise<void>;
}

/** Options of {@linkcode inProcessServer}. */
export interface InProcessServerOptions {
  /** Speak Streamable HTTP (default `true`); `false` answers POSTs to the endpoint with `refuseWith`. */
  streamable?: boolean;
  /** Speak the old HTTP+SSE transport on GET (default `true`). */
  sse?: boolean;
  /** The status of refused Streamable HTTP requests; default 405. */
  refuseWith?: number;
  /** Sees every request first; a returned response short-circuits the server. */
  intercept?: (request: Request) => Response | undefined | Promise<Response | undefined>;
  /**
   * Serve statelessly, as stateless deployments do: no session id, JSON answers, and a fresh
   * server from `make(request)` for every request.
   */
  stateless?: boolean;
}

/** A server answering a fetch function. */
export interface InProcessServer {
  /** The fetch to hand to a client transport. */
  fetch: typeof fetch;
  /** Every request received, in order. */
  requests: SeenRequest[];
  /** Closes every session and stream. */
  close(): Promise<void>;
}

/**
 * Starts a server answering `fetch`; `make` creates one `McpServer` per session.
 *
 * @param make Creates a server.
 * @param options Which transports it speaks.
 * @returns The server.
 */
export function inProcessServer(
  make: (request?: Request) => McpServer,
  options: InProcessServerOptions = {},
): InProcessServer {
  const requests: SeenRequest[] = [];
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const sseSessions = new Map<string, InMemoryTransport>();
  const closers: (() => Promise<void>)[] = [];
  let sseCount = 0;

  async function stateless(request: Request): Promise<Response> {
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    const server = make(request);
    await server.connect(transport);
    const response = await transport.handleRequest(request);
    // A real HTTP server declares the length of a whole body; the SDK leaves that to it.
    if (response.body === null || request.method !== "POST") return response;
    const bytes = new Uint8Array(await response.arrayBuffer());
    const headers = new Headers(response.headers);
    headers.set("content-length", String(bytes.byteLength));
    await server.close();
    return new Response(bytes, { status: response.status, headers });
  }

  async function streamable(request: Request): Promise<Response> {
    if (options.stateless) return await stateless(request);
    const id = request.headers.get("mcp-session-id");
    let transport = id === null ? undefined : sessions.get(id);
    if (id !== null && transport === undefined) return new Response("no session", { status: 404 });
    if (transport === undefined) {
      const created = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (sessionId) => void sessions.set(sessionId, created),
      });
      const server = make();
      await server.connect(created);
      closers.push(() => server.close());
      transport = created;
    }
    return await transport.handleRequest(request);
  }

  async function openSse(): Promise<Response> {
    const [client, serverSide] = InMemoryTransport.createLinkedPair();
    const server = make();
    await server.connect(serverSide);
    const session = String(++sseCount);
    sseSessions.set(session, client);
    const encoder = new TextEncoder();
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({
      start: (c) => {
        controller = c;
        c.enqueue(encoder.encode(`event: endpoint\ndata: /messages?session=${session}\n\n`));
      },
      cancel: async () => {
        sseSessions.delete(session);
        await server.close();
      },
    });
    client.onmessage = (message) => {
      controller.enqueue(encoder.encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`));
    };
    await client.start();
    closers.push(async () => {
      if (!sseSessions.delete(session)) return;
      await server.close();
      controller.close();
    });
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  }

  async function handle(request: Request): Promise<Response> {
    const body = request.method === "POST" ? await request.clone().text() : "";
    const answered = Promise.withResolvers<void>();
    requests.push({
      method: request.method,
      url: request.url,
      headers: new Headers(request.headers),
      body,
      answered: answered.promise,
    });
    const response = await route(request, body);
    if (response.body === null) {
      answered.resolve();
      return response;
    }
    const reader = response.body.getReader();
    const watched = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        const chunk = await reader.read();
        if (!chunk.done) return controller.enqueue(chunk.value);
        controller.close();
        answered.resolve();
      },
      cancel: async (reason) => {
        answered.resolve();
        await reader.cancel(reason);
      },
    });
    return new Response(watched, response);
  }

  async function route(request: Request, body: string): Promise<Response> {
    const intercepted = await options.intercept?.(request);
    if (intercepted !== undefined) return intercepted;
    const url = new URL(request.url);
    if (url.pathname === "/messages" && request.method === "POST") {
      const client = sseSessions.get(url.searchParams.get("session") ?? "");
      if (client === undefined) return new Response("no session", { status: 404 });
      await client.send(JSON.parse(body));
      return new Response(null, { status: 202 });
    }
    if (request.method === "GET" && options.sse !== false && options.streamable === false) {
      return await openSse();
    }
    if (options.streamable === false) {
      return new Response("not here", { status: options.refuseWith ?? 405 });
    }
    return await streamable(request);
  }

  return {
    fetch:
      ((input: string | URL | Request, init?: RequestInit) =>
        handle(new Request(input, init))) as typeof fetch,
    requests,
    close: async () => {
      for (const close of closers.splice(0)) await close().catch(() => {});
      for (const transport of sessions.values()) await transport.close().catch(() => {});
      sessions.clear();
    },
  };
}

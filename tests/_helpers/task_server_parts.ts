/**
 * Parts of the 2026-07-28 task servers of the gateway's tests: whether a request declares the
 * Tasks extension, a loopback listener that can restart on its port (a server restart that keeps
 * its task store), and the transport of a `serve` client to a tool set in this process.
 *
 * @module
 */

import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { ToolSet } from "../../mod.ts";
import { mcpHttpHandler } from "../../src/core/mcp/mod.ts";

/**
 * A client transport to `mcpHttpHandler` serving a tool set in this process, as `serve` serves
 * it (no socket: each request is handed to the handler).
 *
 * @param toolSet The tool set served.
 * @returns The transport, to connect a client with, and the handler's `close`.
 */
export function serveTransport(
  toolSet: ToolSet,
): { transport: StreamableHTTPClientTransport; close(): Promise<void> } {
  const handler = mcpHttpHandler({ tools: () => toolSet });
  const transport = new StreamableHTTPClientTransport(new URL("http://127.0.0.1:8787/mcp"), {
    fetch: (url: string | URL, init?: RequestInit) => handler(new Request(url, init)),
  });
  return { transport, close: () => handler.close() };
}

/** The identifier of the Tasks extension of the 2026-07-28 revision. */
export const TASKS = "io.modelcontextprotocol/tasks";

/**
 * Whether a request declares the Tasks extension in its per-request client capabilities.
 *
 * @param envelope The request's envelope (`ctx.mcpReq.envelope`: the SDK types it as `{}`; its
 *   keys are the spec's reserved `_meta` names).
 * @returns `true` when it does.
 */
export function declaresTasks(envelope: unknown): boolean {
  const capabilities = (envelope as Record<string, unknown> | undefined)?.[
    "io.modelcontextprotocol/clientCapabilities"
  ] as { extensions?: Record<string, unknown> } | undefined;
  return capabilities?.extensions?.[TASKS] !== undefined;
}

/** A listener on 127.0.0.1 that can stop and listen again on the same port. */
export interface RestartableListener {
  /** The MCP endpoint. */
  url: string;
  /** Stops listening for `downMs`, then listens again on the same port. */
  restart(downMs: number): Promise<void>;
  /** Stops listening. */
  close(): Promise<void>;
}

/**
 * Serves `handle` on 127.0.0.1, telling `onPost` each POST's JSON-RPC message first.
 *
 * @param handle The MCP handler.
 * @param onPost Told each POST's message (`{}` when its body is not JSON) and request.
 * @returns The listener.
 */
export function listenRestartable(
  handle: (request: Request) => Promise<Response>,
  onPost: (message: { method?: unknown }, request: Request) => void,
): RestartableListener {
  const serve = (port = 0) =>
    Deno.serve({ hostname: "127.0.0.1", port, onListen() {} }, async (request) => {
      if (request.method === "POST") {
        onPost(await request.clone().json().catch(() => ({})), request);
      }
      return await handle(request);
    });
  let http = serve();
  const port = http.addr.port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async restart(downMs: number) {
      await http.shutdown();
      await new Promise((resolve) => setTimeout(resolve, downMs));
      http = serve(port);
    },
    close: () => http.shutdown(),
  };
}

import { serveToolSetConnection } from "../../core/mcp/serve/tool_set_server.ts";
import type { ServedRouter } from "./build_router.ts";
import type { CliIo } from "./cli_io.ts";
import { DenoStdioServerTransport } from "../mcp/stdio_server_transport.ts";
import type { ToolrouteConfig } from "./toolroute_config.ts";

/** What both serve modes share. */
export interface ServeContext {
  served: ServedRouter;
  config: ToolrouteConfig;
  /** Logs (stderr). */
  io: CliIo;
  /** Aborts on SIGINT or SIGTERM. */
  stop: AbortSignal;
  /** Listeners for tool-list changes of the gateway (the user, or all users). */
  toolsChanged: Set<(userId?: string) => void>;
}

/**
 * Serves the tool set of one user (or of nobody) over stdin and stdout until stdin ends or the
 * process is told to stop, in the MCP era the client's first message picks (2025 `initialize`,
 * or 2026-07-28 `server/discover` / a request with the per-request envelope).
 *
 * @param userId The user of `--user`.
 */
export async function serveStdio(context: ServeContext, userId: string | undefined): Promise<void> {
  const { served, config, io, stop, toolsChanged } = context;
  const server = serveToolSetConnection((request) => served.expose(userId, request.signal), {
    userId,
    timeoutMs: config.callTimeoutMs,
    transport: new DenoStdioServerTransport(),
  });
  const ended = server.closed;
  toolsChanged.add((changedFor) => {
    if (changedFor === undefined || changedFor === userId) {
      void server.notifyToolListChanged().catch(() => {});
    }
  });
  io.err(`toolroute: serving over stdio${userId === undefined ? "" : ` as user "${userId}"`}`);
  await Promise.race([ended, new Promise((resolve) => stop.addEventListener("abort", resolve))]);
  await server.close();
}

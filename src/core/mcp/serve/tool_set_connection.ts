import { serveStdio } from "../mcp_sdk.ts";
import type { ToolSet } from "../../tool_set.ts";
import {
  type ToolSetProvider,
  type ToolSetServer,
  toolSetServerForEra,
  type ToolSetServerOptions,
} from "./tool_set_server.ts";

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

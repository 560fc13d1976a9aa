import { McpGateway } from "../../core/mcp/gateway/mcp_gateway.ts";
import type { McpGatewayOptions } from "../../core/mcp/gateway/mcp_gateway_types.ts";
import { isStdioConfig, type McpServerConfig } from "../../core/mcp/mcp_server_config.ts";
import type { McpTransport, McpTransportRequest } from "../../core/mcp/mcp_transport.ts";
import {
  DenoStdioClientTransport,
  type DenoStdioClientTransportOptions,
} from "./stdio_client_transport.ts";

/**
 * The transport factory of the `./deno` entry: a fresh {@linkcode DenoStdioClientTransport} (a
 * new child process) for each connection attempt of a `{ command }` config, and `undefined` for
 * `{ url }` configs so the gateway uses its HTTP transport.
 *
 * Requires `allow-run` permission for the configured commands.
 *
 * @tags allow-run, allow-env
 * @param config The server's config.
 * @returns A stdio transport, or `undefined` for an HTTP config.
 */
export function denoStdioTransportFactory(config: McpServerConfig): McpTransport | undefined {
  return isStdioConfig(config) ? new DenoStdioClientTransport(config) : undefined;
}

/** Options of {@linkcode createDenoGateway}: the gateway's, plus the stdio transport's. */
export interface DenoGatewayOptions extends McpGatewayOptions {
  /** Message size limit and kill grace period of stdio children. */
  stdio?: DenoStdioClientTransportOptions;
  /**
   * The path of the config the servers come from: each sandboxed stdio server then has its proxy
   * socket at a fixed path and a package cache of its own that outlives its starts (see
   * `serverPaths`; `toolroute serve` passes its config's path).
   */
  sandboxScope?: string;
}

/**
 * Creates an `McpGateway` that can also run stdio servers (`{ command, args?, env?, cwd?,
 * sandbox? }`), each as a child process with a minimal environment; a Deno child gets
 * `--no-prompt` and only the permission flags of its config (never `-A`). Where bubblewrap is
 * installed, each stdio server runs in a sandbox of its own (a fresh home, its own `/tmp`, no
 * network but its `sandbox.network.allow`, its program, runtime and package caches read-only,
 * process and memory limits) unless its config says `"sandbox": "none"`; without bubblewrap it
 * runs unconfined and `onEvent` gets one `unconfined` event per server. A child is respawned when the gateway reconnects,
 * never two at once, and stopped by `gateway.close()`.
 *
 * A `transportFactory` in the options takes precedence; when it returns `undefined`, the stdio
 * factory is asked next.
 *
 * Requires `allow-run` permission for the configured commands, `allow-net` for the remote servers.
 *
 * @example A stdio server and a remote one
 * ```ts ignore
 * import { ToolRouter } from "@toolroute/toolroute";
 * import { createDenoGateway, loadMcpConfig } from "@toolroute/toolroute/deno";
 *
 * await using gateway = createDenoGateway({ servers: await loadMcpConfig("mcp.json") });
 * const router = new ToolRouter({ gateway });
 * const toolSet = await router.expose({ mcpServers: ["files"] });
 * ```
 *
 * @tags allow-run, allow-net, allow-env
 * @param options The gateway's options.
 * @returns The gateway.
 */
export function createDenoGateway(options: DenoGatewayOptions = {}): McpGateway {
  const { stdio, transportFactory, sandboxScope, ...rest } = options;
  // One warning per server, not one per reconnect.
  const warned = new Set<string>();
  const stdioFactory = (
    config: McpServerConfig,
    request?: McpTransportRequest,
  ): McpTransport | undefined =>
    isStdioConfig(config)
      ? new DenoStdioClientTransport(config, {
        ...stdio,
        ...(sandboxScope === undefined || request === undefined ? {} : {
          identity: { scope: sandboxScope, serverId: request.serverId, userId: request.userId },
        }),
        onUnconfined: (message) => {
          stdio?.onUnconfined?.(message);
          const serverId = request?.serverId ?? config.command;
          if (warned.has(serverId)) return;
          warned.add(serverId);
          try {
            options.onEvent?.({ type: "unconfined", serverId, message });
          } catch {
            // A throwing listener does not stop the server.
          }
        },
      })
      : undefined;
  return new McpGateway({
    ...rest,
    transportFactory: transportFactory === undefined
      ? stdioFactory
      : async (config, request) =>
        (await transportFactory(config, request)) ?? stdioFactory(config, request),
  });
}

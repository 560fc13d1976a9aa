import { ToolRouter } from "../../core/tool_router.ts";
import type { ToolCallEvent } from "../../core/tool_call.ts";
import type { McpGatewayEvent } from "../../core/mcp/gateway/mcp_gateway_types.ts";
import type { ToolSet } from "../../core/tool_set.ts";
import type { MissingTool } from "../../core/tool_source.ts";
import { builtinTools } from "../builtins/builtin_tools.ts";
import { createDenoGateway } from "../mcp/deno_gateway.ts";
import { loadModules } from "./load_modules.ts";
import { withBashProgress } from "./progress_heartbeat.ts";
import type { ToolrouteConfig } from "./toolroute_config.ts";
import { UsageError } from "./usage_error.ts";

/** The router a config describes, and the tool set each user is served. */
export interface ServedRouter extends AsyncDisposable {
  /** The router. */
  readonly router: ToolRouter;
  /**
   * The tool set of one user (or of nobody): exactly what the config exposes.
   *
   * @param userId The user id, from a token or `--user`.
   */
  expose(userId?: string, signal?: AbortSignal): Promise<ToolSet>;
  /** Closes the gateway, the modules' services and background processes. */
  close(): Promise<void>;
}

/** Options of {@linkcode buildRouter}. */
export interface BuildRouterOptions {
  /** Receives one event per call. */
  onEvent?: (event: ToolCallEvent) => void;
  /** How often a long `bash` call reports progress, in ms. Default: 1000. */
  progressIntervalMs?: number;
  /** Receives the gateway's connection events (connected, failed, tools changed, …). */
  onGatewayEvent?: (event: McpGatewayEvent) => void;
}

/**
 * Builds the router of a config: the built-ins for its workspace, the functions and local
 * services of its modules, and a gateway with its global and per-user MCP servers.
 *
 * Throws a {@linkcode UsageError} for a module that cannot be loaded.
 *
 * @tags allow-read, allow-write, allow-run, allow-env, allow-net
 * @param config The loaded config.
 * @param options Call events and progress interval.
 * @returns The router and the per-user exposure.
 */
export async function buildRouter(
  config: ToolrouteConfig,
  options: BuildRouterOptions = {},
): Promise<ServedRouter> {
  const { functions, mcpServices } = await loadModules(config.modules);
  // Built-ins only when the config asks for them: an mcp.json grants no file access.
  const builtins = config.builtins !== false ? builtinTools(config.context) : undefined;
  const hasServers = Object.keys(config.mcpServers).length > 0 ||
    config.users.some((user) => Object.keys(user.mcpServers).length > 0);
  const gateway = hasServers
    ? createDenoGateway({
      servers: config.mcpServers,
      onEvent: options.onGatewayEvent,
      // Upstream servers' questions during a call reach the serving client that made the call.
      relayElicitation: true,
    })
    : undefined;
  for (const user of config.users) {
    for (const [id, server] of Object.entries(user.mcpServers)) {
      gateway?.addUserServer(user.id, id, server);
    }
  }
  const router = new ToolRouter({
    builtins: builtins && withBashProgress(builtins, options.progressIntervalMs),
    functions,
    mcpServices,
    gateway,
    onEvent: options.onEvent,
    timeoutMs: config.callTimeoutMs,
    maxResultChars: config.maxResultChars,
  });
  const expose = config.expose;
  const close = () => router.close();
  return {
    router,
    expose(userId?: string, signal?: AbortSignal): Promise<ToolSet> {
      const user = config.users.find((entry) => entry.id === userId);
      return router.expose({
        builtins: builtins === undefined ? [] : expose.builtins ?? [...builtins.names],
        functions: expose.functions ?? functions.map((tool) => tool.name),
        mcpServices: expose.mcpServices ?? mcpServices.map((service) => service.name),
        mcpServers: [
          ...(expose.mcpServers ?? Object.keys(config.mcpServers)),
          ...Object.keys(user?.mcpServers ?? {}),
        ],
        userId,
        signal,
      });
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

/**
 * Finds a configured user by id; throws a {@linkcode UsageError} naming the known ones.
 *
 * @param config The config.
 * @param userId The id from `--user`.
 * @returns The id, checked.
 */
export function checkUser(config: ToolrouteConfig, userId: string | undefined): string | undefined {
  if (userId === undefined) return undefined;
  if (config.users.some((user) => user.id === userId)) return userId;
  const known = config.users.map((user) => `"${user.id}"`).join(", ") || "none";
  throw new UsageError(`Unknown user "${userId}"; the config's users are: ${known}`);
}

/**
 * Describes names of the config that could not be exposed, one line each.
 *
 * @param missing The tool set's missing entries.
 * @returns The lines.
 */
export function describeMissing(missing: readonly MissingTool[]): string[] {
  return missing.map((entry) => `not exposed: ${entry.selection} "${entry.name}": ${entry.reason}`);
}

import { dirname, join } from "@std/path";
import type { McpServerConfig } from "../../core/mcp/mcp_server_config.ts";
import type { BuiltinContext } from "../../core/tool_source.ts";
import type { Policy } from "../../core/policy_types.ts";
import type { ToolrouteConfigFile } from "./config_schema.ts";

/** One user of `serve --http`: the token's variable, the id and the user's own servers. */
export interface UserConfig {
  /** The environment variable that holds the user's bearer token. */
  tokenVariable: string;
  id: string;
  /** The user's own MCP servers, `${VAR}` expanded. */
  mcpServers: Record<string, McpServerConfig>;
}

/** A loaded `toolroute.json`: validated, paths absolute, `${VAR}` expanded. */
export interface ToolrouteConfig {
  /** The absolute path of the file, when one was read. */
  path?: string;
  /**
   * The built-in context (absolute paths). Its `workspace` may hold `{user}` (a folder per user):
   * then it is a template, and each user's context is `userContext(context, id)`.
   */
  context: BuiltinContext;
  /** Several users share the one workspace, as the config says (`"sharedWorkspace": true`). */
  sharedWorkspace?: boolean;
  /**
   * Whether built-in tools are served: only when asked for, by `workspace`, `bash` or
   * `expose.builtins` in the file or by `--workspace`. A config with only `mcpServers` (an
   * `mcp.json`) serves none, and needs no permission for the workspace. `loadConfig` always
   * sets it; absent (a config made by hand) counts as `true`.
   */
  builtins?: boolean;
  /** Modules to import for function tools and local services (absolute paths). */
  modules: string[];
  /** What is exposed, as the file says; an absent list means "everything of that kind". */
  expose: NonNullable<ToolrouteConfigFile["expose"]>;
  /** Global MCP servers by id. */
  mcpServers: Record<string, McpServerConfig>;
  /** The users, in file order. */
  users: UserConfig[];
  /** Deadline of every call, in milliseconds. */
  callTimeoutMs?: number;
  /** Most characters of any result. */
  maxResultChars?: number;
  /** Longest wait of a tool list for MCP servers still starting (the gateway's `listWaitMs`). */
  listWaitMs?: number;
  /**
   * Settings of `serve --http`; `maxConnections` (default 256), `maxConnectionsPerUser` (default
   * 64, per bearer token) and `headTimeoutMs` (default 10000) bound what clients hold of the
   * server.
   */
  http: NonNullable<ToolrouteConfigFile["http"]>;
  /** Allow, ask and deny rules over the served tools. */
  policy?: Policy;
  /** Names of the environment variables the file reads (`${VAR}` and token variables). */
  variables: string[];
}

/** Whether the config names MCP servers, global or a user's own. */
export function hasMcpServers(config: ToolrouteConfig): boolean {
  return Object.keys(config.mcpServers).length > 0 ||
    config.users.some((user) => Object.keys(user.mcpServers).length > 0);
}

/**
 * Where a file that serves the config's MCP servers is kept (`toolroute.lock`,
 * `toolroute.names.json`): beside the config file.
 *
 * @returns The path, or `undefined` when there is no config file or no MCP server.
 */
export function besideConfig(config: ToolrouteConfig, name: string): string | undefined {
  return config.path !== undefined && hasMcpServers(config)
    ? join(dirname(config.path), name)
    : undefined;
}

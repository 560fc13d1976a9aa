import type {
  GatewayRequest,
  GatewayResolution,
  GatewaySource,
  MissingTool,
} from "../../tool_source.ts";
import { connectSelected, type SelectedServer } from "./connect_selected.ts";
import { gatewaySettings } from "./gateway_settings.ts";
import type { McpGatewayEvent, McpGatewayOptions, McpServerStatus } from "./mcp_gateway_types.ts";
import { checkServerConfig, isStdioConfig, type McpServerConfig } from "../mcp_server_config.ts";
import { KnownToolNames } from "./known_tool_names.ts";
import { type ConnectionLookup, RemoteRoutedTools } from "./remote_routed_tools.ts";
import { type ConnectionSettings, ServerConnection } from "./server_connection.ts";
import { UserServers } from "./user_servers.ts";

type BaseSettings = Omit<ConnectionSettings, "serverId" | "userId" | "config">;

/**
 * The remote MCP gateway: global servers shared by every request and per-user servers carrying
 * one user's credentials, connected lazily and in parallel, with one connection per (user,
 * server), reconnection with backoff, tool lists kept current, and calls that cannot hang.
 *
 * Pass it to `new ToolRouter({ gateway })`; a selection's `mcpServers` names the servers.
 * A per-user server is visible and callable only in tool sets of its user, and never replaced by a
 * global server of the same id. Requires `allow-net` permission for the servers' hosts.
 *
 * @example A global server and a user's server (HTTP)
 * ```ts ignore
 * import { McpGateway, ToolRouter } from "@toolroute/toolroute";
 *
 * await using gateway = new McpGateway({
 *   servers: { docs: { url: "https://docs.example.com/mcp" } },
 *   allowedHosts: ["docs.example.com", "crm.example.com"],
 * });
 * gateway.addUserServer("alice", "crm", {
 *   url: "https://crm.example.com/mcp",
 *   headers: { Authorization: "Bearer alice-token" },
 * });
 * const router = new ToolRouter({ gateway });
 * const toolSet = await router.expose({ mcpServers: ["docs", "crm"], userId: "alice" });
 * console.log(toolSet.names, toolSet.missing);
 * ```
 *
 * @example Route to an SDK server through a transport factory (in memory)
 * ```ts
 * import { McpGateway, type McpTransport, ToolRouter } from "@toolroute/toolroute";
 * import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
 * import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
 * import { z } from "zod";
 * import { assertEquals } from "@std/assert";
 *
 * await using gateway = new McpGateway({
 *   servers: { greeter: { url: "http://127.0.0.1:1/mcp" } },
 *   transportFactory: async () => {
 *     const server = new McpServer({ name: "greeter", version: "1.0.0" });
 *     server.registerTool("greet", { inputSchema: { name: z.string() } }, ({ name }: { name: string }) => ({
 *       content: [{ type: "text", text: `Hello, ${name}` }],
 *     }));
 *     const [client, serverSide] = InMemoryTransport.createLinkedPair();
 *     await server.connect(serverSide);
 *     return client as McpTransport;
 *   },
 * });
 * const router = new ToolRouter({ gateway });
 * const toolSet = await router.expose({ mcpServers: ["greeter", "weather"] });
 * assertEquals(await toolSet.invoke("greet", '{"name":"Ada"}'), "Hello, Ada");
 * // A server the gateway does not know is reported, not thrown.
 * assertEquals(toolSet.missing[0], {
 *   selection: "mcpServers",
 *   name: "weather",
 *   reason: "no MCP server has this id",
 * });
 * ```
 */
export class McpGateway implements GatewaySource, AsyncDisposable {
  #settings: BaseSettings;
  #global = new Map<string, ServerConnection>();
  #users: UserServers;
  #tools = new RemoteRoutedTools();
  #known = new KnownToolNames();
  #globalLookup: ConnectionLookup = { connection: (id) => this.#global.get(id) };
  #closed = false;

  /**
   * Creates a gateway; nothing connects until a request selects a server.
   * Throws a `RangeError` for a bad limit and a `TypeError` for a bad server config.
   *
   * @param options Servers, deadlines, limits, and injected capabilities.
   */
  constructor(options: McpGatewayOptions = {}) {
    const { settings, userIdleMs, maxUserConnections } = gatewaySettings(
      options,
      (event) => this.#emit(options.onEvent, event),
    );
    this.#settings = settings;
    this.#users = new UserServers({
      idleMs: userIdleMs,
      maxConnections: maxUserConnections,
      connect: (serverId, userId, config) => this.#connection(serverId, userId, config),
      onClose: (userId, serverId, reason) =>
        this.#settings.emit({ type: "closed", serverId, userId, reason }),
    });
    for (const [id, config] of Object.entries(options.servers ?? {})) this.addServer(id, config);
  }

  /**
   * Adds a global server. Throws a `TypeError` when the id is taken or the config is invalid.
   *
   * @param id The server id that selections name.
   * @param config `{ url, headers?, transport? }`, or `{ command, ... }` with a transport factory.
   */
  addServer(id: string, config: McpServerConfig): void {
    this.#check(id, config);
    if (this.#global.has(id)) {
      throw new TypeError(`Cannot add MCP server "${id}": a global server has this id`);
    }
    this.#global.set(id, this.#connection(id, undefined, structuredClone(config)));
  }

  /**
   * Removes a global server and closes its connection.
   *
   * @param id The server id.
   */
  async removeServer(id: string): Promise<void> {
    const connection = this.#global.get(id);
    if (connection === undefined) return;
    this.#global.delete(id);
    this.#known.forget("global", id);
    await connection.close();
    this.#settings.emit({ type: "closed", serverId: id, reason: "removed" });
  }

  /**
   * Adds a server for one user only. Throws a `TypeError` when the user already has this id.
   *
   * @param userId The user.
   * @param id The server id (may equal a global one: the user's then takes priority).
   * @param config The config; its headers are sent on this user's connection only.
   */
  addUserServer(userId: string, id: string, config: McpServerConfig): void {
    if (typeof userId !== "string" || userId === "") {
      throw new TypeError(
        `Cannot add MCP server "${id}": "userId" must be a non-empty string, received ${
          JSON.stringify(userId)
        }`,
      );
    }
    this.#check(id, config);
    this.#users.add(userId, id, config);
  }

  /**
   * Removes one server of a user and closes its connection.
   *
   * @param userId The user.
   * @param id The server id.
   */
  async removeUserServer(userId: string, id: string): Promise<void> {
    this.#known.forget(userTier(userId), id);
    await this.#users.remove(userId, id);
  }

  /**
   * Removes every server of a user and closes their connections.
   *
   * @param userId The user.
   */
  async clearUser(userId: string): Promise<void> {
    this.#known.forget(userTier(userId));
    await this.#users.remove(userId);
  }

  /**
   * The ids of every global server, and of the user's servers when a user is given.
   *
   * @param userId The user.
   * @returns The ids, global first, without repeats.
   */
  serverIds(userId?: string): string[] {
    const ids = new Set(this.#global.keys());
    for (const id of userId ? this.#users.ids(userId) : []) ids.add(id);
    return [...ids];
  }

  /**
   * The state of every global server and every user's server.
   *
   * @returns One entry per connection (a user's server not connected yet is `closed`).
   */
  status(): McpServerStatus[] {
    return [...[...this.#global.values()].map((c) => c.status()), ...this.#users.status()];
  }

  /**
   * Resolves the named servers for one request, connecting in parallel. A server that cannot be
   * reached is reported in `missing`; the request goes on with the others.
   *
   * @param request The server ids, the user and a signal.
   * @returns The user's tools, the global tools and the missing servers.
   */
  async resolve(request: GatewayRequest): Promise<GatewayResolution> {
    const { userId, signal } = request;
    const missing: MissingTool[] = [];
    const wanted: SelectedServer[] = [];
    // Held until listed: acquiring a later server must not evict an earlier one of this request.
    const holds: (() => void)[] = [];
    let connected;
    try {
      for (const id of new Set(request.serverIds)) {
        const mine = userId === undefined ? undefined : this.#users.connection(userId, id);
        if (mine !== undefined) {
          holds.push(mine.hold());
          wanted.push({ id, user: true, connection: mine });
        }
        const global = this.#global.get(id);
        if (global !== undefined) wanted.push({ id, user: false, connection: global });
        if (mine === undefined && global === undefined) {
          missing.push({ selection: "mcpServers", name: id, reason: "no MCP server has this id" });
        }
      }
      connected = await connectSelected(wanted, signal);
    } finally {
      for (const release of holds) release();
    }
    const { user, global, missing: down } = connected;
    missing.push(...down);
    const known = this.#known;
    for (const { id, connection } of user) {
      known.update(userTier(userId!), id, connection.tools.map((tool) => tool.name));
    }
    for (const { id, connection } of global) {
      known.update("global", id, connection.tools.map((tool) => tool.name));
    }
    return {
      user: user.length === 0 ? [] : this.#tools.build(
        "user_mcp",
        user,
        { userId, connection: (id) => this.#users.connection(userId!, id) },
        userTier(userId!),
        {
          lists: known.lists(userTier(userId!), this.#users.ids(userId!)),
          version: known.version,
        },
      ),
      global: global.length === 0 ? [] : this.#tools.build(
        "global_mcp",
        global,
        this.#globalLookup,
        "global",
        { lists: known.lists("global", this.#global.keys()), version: known.version },
      ),
      missing,
    };
  }

  /** Closes every connection, stream and child process. */
  async close(): Promise<void> {
    this.#closed = true;
    const global = [...this.#global.values()];
    this.#global.clear();
    await Promise.allSettled([...global.map((c) => c.close()), this.#users.close()]);
  }

  /** Same as {@linkcode McpGateway#close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #connection(serverId: string, userId: string | undefined, config: McpServerConfig) {
    return new ServerConnection({ ...this.#settings, serverId, userId, config });
  }

  #check(id: string, config: McpServerConfig): void {
    if (this.#closed) throw new TypeError(`Cannot add MCP server "${id}": the gateway is closed`);
    checkServerConfig(id, config, this.#settings.allowedHosts);
    if (isStdioConfig(config) && this.#settings.transportFactory === undefined) {
      throw new TypeError(
        `Cannot add MCP server "${id}": stdio servers ("command") run only through the ` +
          `"@toolroute/toolroute/deno" entry (createDenoGateway); use a "url" here`,
      );
    }
  }

  #emit(onEvent: ((event: McpGatewayEvent) => void) | undefined, event: McpGatewayEvent): void {
    try {
      onEvent?.(event);
    } catch {
      // An observer's failure must not change the gateway.
    }
  }
}

/** The tier key of a user's own servers. */
function userTier(userId: string): string {
  return `user\u0000${userId}`;
}

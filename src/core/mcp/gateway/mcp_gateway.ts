import type { GatewayRequest, GatewayResolution, GatewaySource } from "../../tool_source.ts";
import { checkServerConfig, isStdioConfig, type McpServerConfig } from "../mcp_server_config.ts";
import { ServerResolver, userGlobalTier, userTier } from "./_server_resolver.ts";
import { ServerConnection } from "./connection/server_connection.ts";
import type { ConnectionSettings } from "./connection/connection_settings.ts";
import { eraKey } from "./connection/open_mcp_client.ts";
import { gatewaySettings } from "./gateway_settings.ts";
import type { McpGatewayOptions, McpServerStatus } from "./mcp_gateway_types.ts";
import { ToolPins } from "./pinning/tool_pins.ts";
import { KnownToolNames } from "./tools/known_tool_names.ts";
import { RemoteRoutedTools } from "./tools/remote_routed_tools.ts";
import { UserServers } from "./users/user_servers.ts";

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
 * import { ToolRouter } from "@toolroute/toolroute";
 * import { McpGateway } from "@toolroute/toolroute/mcp";
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
 * import { ToolRouter } from "@toolroute/toolroute";
 * import { McpGateway, type McpTransport } from "@toolroute/toolroute/mcp";
 * import { InMemoryTransport, McpServer } from "@modelcontextprotocol/server";
 * import { z } from "zod";
 * import { assertEquals } from "@std/assert";
 *
 * await using gateway = new McpGateway({
 *   servers: { greeter: { url: "http://127.0.0.1:1/mcp" } },
 *   transportFactory: async () => {
 *     const server = new McpServer({ name: "greeter", version: "1.0.0" });
 *     server.registerTool("greet", { inputSchema: z.object({ name: z.string() }) }, ({ name }) => ({
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
  #globalConfigs = new Map<string, McpServerConfig>();
  #users: UserServers;
  #known: KnownToolNames;
  #resolver: ServerResolver;
  #closed = false;
  // Ends the authorization requests still under way (OAuth's discovery, registration, tokens)
  // at close: they belong to no connection, so closing the connections does not reach them.
  #closing = new AbortController();
  #pins?: ToolPins;
  /** The router's budget of this gateway's results, in characters (see `McpGatewayOptions`). */
  readonly maxResultChars: number;

  /**
   * Creates a gateway; nothing connects until a request selects a server.
   * Throws a `RangeError` for a bad limit and a `TypeError` for a bad server config.
   *
   * @param options Servers, deadlines, limits, and injected capabilities.
   */
  constructor(options: McpGatewayOptions = {}) {
    const { settings, toolNames, remoteText, ...limits } = gatewaySettings(options);
    const { oauth } = settings;
    this.maxResultChars = limits.maxResultChars;
    oauth?.attach({
      fetch: settings.fetch,
      allowedHosts: settings.allowedHosts,
      signal: this.#closing.signal,
      timeoutMs: settings.connectTimeoutMs,
    });
    this.#settings = settings;
    const emit = this.#settings.emit;
    this.#known = new KnownToolNames({
      store: toolNames,
      maxChars: remoteText.maxToolListChars,
      emit,
    });
    this.#users = new UserServers({
      idleMs: limits.userIdleMs,
      maxConnections: limits.maxUserConnections,
      connect: (serverId, userId, config) => this.#connection(serverId, userId, config),
      // The era verdict (with the capabilities, such as the Tasks extension) was found with the
      // removed config's credentials; the id re-added with other ones must be asked again.
      onRemoved: (serverId, userId, config) =>
        settings.eras?.forget(eraKey({ serverId, userId, config })),
      onClose: (userId, serverId, reason) => emit({ type: "closed", serverId, userId, reason }),
    });
    const pinning = options.pinning ?? true;
    if (pinning !== false) this.#pins = new ToolPins(pinning === true ? {} : pinning, emit);
    const servers = {
      global: this.#global,
      globalConfigs: this.#globalConfigs,
      users: this.#users,
      perUser: (id: string) => oauth?.authorizesPerUser(id) === true,
    };
    this.#resolver = new ServerResolver({
      servers,
      tools: new RemoteRoutedTools(remoteText),
      known: this.#known,
      pins: this.#pins,
      waitMs: limits.listWaitMs,
      emit,
      closed: () => this.#closed,
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
    const copy = structuredClone(config);
    this.#global.set(id, this.#connection(id, undefined, copy));
    this.#globalConfigs.set(id, copy);
  }

  /**
   * Removes a global server and closes its connection.
   *
   * @param id The server id.
   */
  async removeServer(id: string): Promise<void> {
    const connection = this.#global.get(id);
    if (connection === undefined) return;
    // What its users' connections found was found with its credentials (see `onRemoved`).
    const config = this.#globalConfigs.get(id);
    if (config !== undefined) this.#settings.eras?.forgetServer(eraKey({ serverId: id, config }));
    this.#global.delete(id);
    this.#globalConfigs.delete(id);
    this.#known.forget("global", id);
    await Promise.all([connection.close(), this.#users.removeGlobal(id)]);
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
    checkUserId(userId, `add MCP server "${id}"`);
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
    this.#known.forget(userGlobalTier(userId));
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
    const all = [...[...this.#global.values()].map((c) => c.status()), ...this.#users.status()];
    return all.map((entry) => {
      const withheld = this.#pins?.withheld({ serverId: entry.id, userId: entry.userId }) ?? [];
      return withheld.length === 0 ? entry : { ...entry, withheld };
    });
  }

  /**
   * Resolves the named servers for one request, connecting in parallel. A server that cannot be
   * reached is reported in `missing`; the request goes on with the others.
   *
   * @param request The server ids, the user and a signal.
   * @returns The user's tools, the global tools and the missing servers.
   */
  resolve(request: GatewayRequest): Promise<GatewayResolution> {
    return this.#resolver.resolve(request);
  }

  /**
   * Accepts the current tool definitions of a server: pins them, so tools withheld after drift
   * are exposed again from the next request on. Connects and lists first when needed.
   * Throws a `TypeError` when there is no such server or pinning is off.
   *
   * @param serverId The server id.
   * @param options With `userId`: for that user only (their own server with this id and their
   *   view of the global one); without it: the global server's server-wide pins, which every user
   *   follows who has not accepted that tool on their own.
   */
  async acceptToolChanges(serverId: string, options: { userId?: string } = {}): Promise<void> {
    const { userId } = options;
    // An empty id would share the server-wide pin's in-memory key: accepting for "" accepted for all.
    if (userId !== undefined) checkUserId(userId, `accept the tools of MCP server "${serverId}"`);
    await this.#resolver.acceptTools(serverId, userId);
  }

  /** Closes every connection, stream and child process. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#closing.abort();
    const global = [...this.#global.values()];
    this.#global.clear();
    await Promise.allSettled([...global.map((c) => c.close()), this.#users.close()]);
    await this.#known.settled();
  }

  /** Same as {@linkcode McpGateway#close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #connection(serverId: string, userId: string | undefined, config: McpServerConfig) {
    // Inherited, not copied: a gateway's thousands of user connections share its settings.
    const own = { serverId, userId, config };
    return new ServerConnection(Object.assign(Object.create(this.#settings), own));
  }

  #check(id: string, config: McpServerConfig): void {
    if (this.#closed) throw new TypeError(`Cannot add MCP server "${id}": the gateway is closed`);
    checkServerConfig(id, config, { allowedHosts: this.#settings.allowedHosts });
    if (isStdioConfig(config) && this.#settings.transportFactory === undefined) {
      throw new TypeError(
        `Cannot add MCP server "${id}": stdio servers ("command") run only through the ` +
          `"@toolroute/toolroute/deno" entry (createDenoGateway); use a "url" here`,
      );
    }
  }
}

/** Throws a `TypeError` for a user id that is not a non-empty string. */
function checkUserId(userId: unknown, action: string): void {
  if (typeof userId !== "string" || userId === "") {
    throw new TypeError(
      `Cannot ${action}: "userId" must be a non-empty string, received ${JSON.stringify(userId)}`,
    );
  }
}

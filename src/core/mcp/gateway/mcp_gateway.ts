import type {
  GatewayRequest,
  GatewayResolution,
  GatewaySource,
  MissingTool,
  ToolContext,
} from "../../tool_source.ts";
import type { ToolOutput } from "../../tool_output.ts";
import { tracingIsOff } from "../../telemetry/call_telemetry.ts";
import { connectSelected, type SelectedServer } from "./connection/connect_selected.ts";
import { gatewaySettings } from "./gateway_settings.ts";
import type { McpGatewayEvent, McpGatewayOptions, McpServerStatus } from "./mcp_gateway_types.ts";
import { checkServerConfig, isStdioConfig, type McpServerConfig } from "../mcp_server_config.ts";
import { ToolError } from "../../tool_error.ts";
import { KnownToolNames, type ToolNamesStore } from "./tools/known_tool_names.ts";
import {
  type ConnectionLookup,
  type RemoteCallee,
  RemoteRoutedTools,
} from "./tools/remote_routed_tools.ts";
import type { McpOAuth } from "./oauth/mcp_oauth.ts";
import { AuthorizationRequiredError } from "./oauth/authorization_required_error.ts";
import { type ConnectionSettings, ServerConnection } from "./connection/server_connection.ts";
import { UserServers } from "./users/user_servers.ts";
import { type PinScope, ToolPins } from "./pinning/tool_pins.ts";
import { pinSelected } from "./pinning/pin_selected.ts";
import { tracedRemoteCall } from "./calls/traced_remote_call.ts";

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
  #tools: RemoteRoutedTools;
  #oauth?: McpOAuth;
  #known: KnownToolNames;
  #globalLookup: ConnectionLookup = {
    connection: (id) =>
      this.#oauth?.authorizesPerUser(id) && this.#global.has(id)
        ? this.#perUserCallee(id)
        : this.#callee(id, undefined, this.#global.get(id)),
  };
  #callees = new WeakMap<ServerConnection, RemoteCallee>();
  #closed = false;
  #pins?: ToolPins;
  /** The router's budget of this gateway's results, in characters (see `McpGatewayOptions`). */
  readonly maxResultChars: number;
  #listWaitMs: number;
  /** The tool list version of each connection whose late arrival was announced. */
  #announced = new WeakMap<ServerConnection, number>();

  /**
   * Creates a gateway; nothing connects until a request selects a server.
   * Throws a `RangeError` for a bad limit and a `TypeError` for a bad server config.
   *
   * @param options Servers, deadlines, limits, and injected capabilities.
   */
  constructor(options: McpGatewayOptions = {}) {
    const { settings, userIdleMs, maxUserConnections, remoteText, maxResultChars, listWaitMs } =
      gatewaySettings(
        options,
        (event) => this.#emit(options.onEvent, event),
      );
    if (options.oauth !== undefined && typeof options.oauth?.attach !== "function") {
      throw new TypeError(
        'Cannot create McpGateway: "oauth" must be a McpOAuth (new McpOAuth({ … }))',
      );
    }
    this.#oauth = options.oauth;
    this.maxResultChars = maxResultChars;
    this.#oauth?.attach({ fetch: settings.fetch, allowedHosts: settings.allowedHosts });
    this.#settings = { ...settings, oauth: this.#oauth };
    this.#listWaitMs = listWaitMs;
    this.#tools = new RemoteRoutedTools(remoteText);
    this.#known = new KnownToolNames({
      store: toolNamesStore(options.toolNames),
      maxChars: remoteText.maxToolListChars,
      emit: this.#settings.emit,
    });
    this.#users = new UserServers({
      idleMs: userIdleMs,
      maxConnections: maxUserConnections,
      connect: (serverId, userId, config) => this.#connection(serverId, userId, config),
      onClose: (userId, serverId, reason) =>
        this.#settings.emit({ type: "closed", serverId, userId, reason }),
    });
    for (const [id, config] of Object.entries(options.servers ?? {})) this.addServer(id, config);
    const pinning = options.pinning ?? true;
    if (pinning !== false) {
      this.#pins = new ToolPins(pinning === true ? {} : pinning, this.#settings.emit);
    }
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
    return this.#resolve(request, true);
  }

  async #resolve(request: GatewayRequest, first: boolean): Promise<GatewayResolution> {
    const { userId, signal } = request;
    const perUser = (id: string) => this.#oauth?.authorizesPerUser(id) === true;
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
        if (global !== undefined && !perUser(id)) {
          wanted.push({ id, user: false, connection: global });
        } else if (global !== undefined && userId === undefined) {
          missing.push({
            selection: "mcpServers",
            name: id,
            reason: `the global MCP server is unavailable: ${
              new AuthorizationRequiredError(id, { perUser: true }).message
            }`,
          });
        } else if (global !== undefined) {
          // The user's own session with the global server: their sign-in, their token.
          const own = this.#users.globalFor(userId!, id, this.#globalConfigs.get(id)!);
          holds.push(own.hold());
          wanted.push({ id, user: false, connection: own });
        }
        if (mine === undefined && global === undefined) {
          missing.push({ selection: "mcpServers", name: id, reason: "no MCP server has this id" });
        }
      }
      connected = await connectSelected(wanted, {
        signal,
        waitMs: this.#listWaitMs,
        onArrived: (server) => this.#arrived(server, userId),
      });
    } finally {
      for (const release of holds) release();
    }
    // A global server found just now to authorize each user: asked again through the user's own
    // connection (once), so the user is asked to sign in rather than told it is unavailable.
    if (
      first && userId !== undefined &&
      wanted.some((s) => !s.user && s.connection === this.#global.get(s.id) && perUser(s.id))
    ) {
      return await this.#resolve(request, false);
    }
    missing.push(...connected.missing);
    // Names follow every configured server's last known list, before pins withhold anything.
    const known = this.#known;
    for (const { id, connection } of connected.user) {
      known.update(userTier(userId!), id, connection.tools.map((tool) => tool.name));
    }
    for (const { id, connection } of connected.global) {
      known.update("global", id, connection.tools.map((tool) => tool.name));
    }
    // Servers that have not answered in this process name as the last run saw them.
    await Promise.all([
      known.restore("global", this.#global.keys()),
      userId === undefined ? undefined : known.restore(userTier(userId), this.#users.ids(userId)),
    ]);
    const { user, global, missing: withheld, cacheSuffix } = await pinSelected(
      this.#pins,
      connected,
      { userId },
    );
    missing.push(...withheld);
    return {
      // Built also without a ready server: a missing server's tools get their names (see
      // `MissingTool.tools`), so a call to one names the server.
      user: userId === undefined ? [] : this.#tools.build(
        "user_mcp",
        user,
        {
          userId,
          connection: (id) => this.#callee(id, userId, this.#users.connection(userId!, id)),
        },
        `${userTier(userId!)}${cacheSuffix}`,
        {
          lists: known.lists(userTier(userId!), this.#users.ids(userId!)),
          version: known.version,
        },
        missing,
      ),
      global: this.#global.size === 0 ? [] : this.#tools.build(
        "global_mcp",
        global,
        this.#globalLookup,
        `global${cacheSuffix}`,
        { lists: known.lists("global", this.#global.keys()), version: known.version },
        missing,
      ),
      missing,
    };
  }

  /**
   * Completes an authorization the user granted: call it from the redirect URI's handler with the
   * URL the authorization server redirected to. The `state` in it must be one this gateway issued
   * for this user and server, unexpired and unused; the code is exchanged for tokens, kept for
   * this (user, server) only, and the next request exposes the server's tools. Throws a
   * `TypeError` for a callback that does not fit and an `Error` when the exchange fails.
   *
   * @param userId The user of the host's session (`undefined` for a global server).
   * @param serverId The server id.
   * @param callbackUrl The whole redirect URL (with `code`, `state`, maybe `iss`).
   * @param options `binding`: the cookie value the browser brought, where the host bound the
   *   browser with a ticket's first hop ({@linkcode McpGateway.redeemAuthorizationTicket});
   *   `""` for a browser without it, which is refused.
   */
  async completeAuthorization(
    userId: string | undefined,
    serverId: string,
    callbackUrl: string | URL,
    options: { binding?: string } = {},
  ): Promise<void> {
    if (this.#oauth === undefined) {
      throw new TypeError(
        `Cannot complete authorization for MCP server "${serverId}": the gateway has no "oauth" (McpOAuth)`,
      );
    }
    if (!this.serverIds(userId).includes(serverId)) {
      throw new TypeError(
        `Cannot complete authorization for MCP server "${serverId}": no such server${
          userId === undefined ? "" : ` for user "${userId}"`
        }`,
      );
    }
    await this.#oauth.complete(userId, serverId, callbackUrl, options);
  }

  /**
   * A single-use ticket for the authorization the user was last asked for on a server, for a
   * link through the host's own first hop (see {@linkcode McpGateway.redeemAuthorizationTicket}):
   * the person gets a link to the host, never the authorization URL itself.
   *
   * @param userId The user (`undefined` for a global server's service account).
   * @param serverId The server id.
   * @returns The ticket, or `undefined` when no authorization waits (or there is no `oauth`).
   */
  async authorizationTicket(
    userId: string | undefined,
    serverId: string,
  ): Promise<string | undefined> {
    return await this.#oauth?.ticket(userId, serverId);
  }

  /**
   * Redeems a ticket once, in the host's first hop: returns the authorization URL to redirect
   * the browser to and a random value for a cookie (HttpOnly, SameSite=Lax) that binds this
   * browser to the authorization; the callback then passes the cookie to
   * `completeAuthorization(…, { binding })`. `undefined` for a ticket unknown, expired or used.
   *
   * @param ticket The ticket from the link.
   * @returns The redirect, the cookie value, the `state`, the user (`""` for none) and the server.
   */
  async redeemAuthorizationTicket(ticket: string): Promise<
    | { location: string; binding: string; state: string; user: string; serverId: string }
    | undefined
  > {
    return await this.#oauth?.redeemTicket(ticket);
  }

  /**
   * The user and server a pending authorization belongs to, read from its callback URL's `state`
   * (not used up). For a redirect endpoint that cannot tell the user itself, such as `toolroute
   * serve --http`; a web host passes its own session's user to `completeAuthorization()` instead.
   *
   * @param callbackUrl The redirect URL.
   * @returns The user (absent for a global server) and server id, or `undefined` when unknown.
   */
  async pendingAuthorization(
    callbackUrl: string | URL,
  ): Promise<{ userId?: string; serverId: string } | undefined> {
    return await this.#oauth?.pending(callbackUrl);
  }

  /**
   * The servers of a user that wait for the user to authorize, each with the newest authorization
   * URL (from the latest `expose` or call that needed it): for a host that shows "Connect" links
   * to the signed-in person. Never put these in model-visible text: whoever opens one can link
   * their own account in the user's name.
   *
   * @param userId The user (global servers are authorized per user too).
   * @returns One entry per waiting server; empty without `oauth`.
   */
  authorizationUrls(userId?: string): { serverId: string; authorizationUrl: string }[] {
    return this.#oauth?.waiting(userId) ?? [];
  }

  /**
   * Forgets the OAuth tokens and registrations of a user's server (or of every server of the user):
   * the next use asks the user to authorize again.
   *
   * @param userId The user (`undefined` for global servers).
   * @param serverId The server id, or `undefined` for all.
   */
  async forgetAuthorization(userId: string | undefined, serverId?: string): Promise<void> {
    await this.#oauth?.forget(userId, serverId);
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
    if (userId !== undefined && (typeof userId !== "string" || userId === "")) {
      throw new TypeError(
        `Cannot accept the tools of MCP server "${serverId}": "userId" must be a non-empty string, received ${
          JSON.stringify(userId)
        }`,
      );
    }
    const own = userId === undefined ? undefined : this.#users.connection(userId, serverId);
    const global = this.#global.get(serverId);
    if (own === undefined && global === undefined) {
      throw new TypeError(
        `Cannot accept the tools of MCP server "${serverId}": ${
          userId === undefined
            ? "no global server"
            : `user "${userId}" has no server and there is no global server`
        } with this id`,
      );
    }
    if (this.#pins === undefined) {
      throw new TypeError(
        `Cannot accept the tools of MCP server "${serverId}": pinning is off ("pinning: false")`,
      );
    }
    const pins = this.#pins;
    if (own !== undefined) await pins.accept({ serverId, userId }, await own.listTools());
    // A user's acceptance of a global server's tools is that user's only.
    if (global !== undefined) {
      await pins.accept({ serverId, userId, global: true }, await global.listTools());
    }
  }

  /** Closes every connection, stream and child process. */
  async close(): Promise<void> {
    this.#closed = true;
    const global = [...this.#global.values()];
    this.#global.clear();
    await Promise.allSettled([...global.map((c) => c.close()), this.#users.close()]);
    await this.#known.settled();
  }

  /** Same as {@linkcode McpGateway#close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /**
   * What a remote tool's call reaches at call time: the connection, behind the pin check (a tool
   * whose definition changed after it was exposed is refused) and the remote call's span.
   */
  #callee(
    serverId: string,
    userId: string | undefined,
    connection: ServerConnection | undefined,
  ): RemoteCallee | undefined {
    if (connection === undefined) return undefined;
    // One callee per connection (a connection serves one server for one user, or globally).
    let callee = this.#callees.get(connection);
    if (callee !== undefined) return callee;
    // A global server's pins are the calling user's (`userId` is set for a user's own server);
    // the scope is kept for the last user, so a run of calls makes no new one.
    let scope: PinScope = userId === undefined ? { serverId, global: true } : { serverId, userId };
    callee = {
      callTool: (toolName, args, context) => {
        const pins = this.#pins;
        if (pins === undefined) {
          return this.#remoteCall(serverId, connection, toolName, args, context);
        }
        if (userId === undefined && scope.userId !== context.userId) {
          scope = { serverId, userId: context.userId, global: true };
        }
        // A tool list already found to match its pins (every call but a drift's) is called at
        // once; anything else waits for the full check.
        if (pins.verified(scope, connection.tools)) {
          return this.#remoteCall(serverId, connection, toolName, args, context);
        }
        return this.#checkPin(pins, scope, toolName, connection).then(() =>
          this.#remoteCall(serverId, connection, toolName, args, context)
        );
      },
      request: (method, params, context) => connection.request(method, params, context.signal),
    };
    this.#callees.set(connection, callee);
    return callee;
  }

  /**
   * What a call to a global server that authorizes each user reaches: the calling user's own
   * connection, never another user's; a call without a user is refused.
   */
  #perUserCallee(serverId: string): RemoteCallee {
    return {
      callTool: (toolName, args, context) => {
        const config = this.#globalConfigs.get(serverId);
        if (config === undefined) {
          return Promise.reject(
            new ToolError(
              "upstream_unavailable",
              `The MCP server "${serverId}" was removed; expose the tools again`,
            ),
          );
        }
        if (context.userId === undefined) {
          return Promise.reject(
            new ToolError(
              "upstream_unavailable",
              new AuthorizationRequiredError(serverId, { perUser: true }).message,
            ),
          );
        }
        const own = this.#users.globalFor(context.userId, serverId, config);
        return this.#callee(serverId, undefined, own)!.callTool(toolName, args, context);
      },
      // A resource or prompt of such a server is read on the user's own connection, as a call is.
      request: (method, params, context) => {
        const config = this.#globalConfigs.get(serverId);
        if (config === undefined || context.userId === undefined) {
          return Promise.reject(new Error(`The MCP server "${serverId}" cannot be reached now`));
        }
        const own = this.#users.globalFor(context.userId, serverId, config);
        return own.request(method, params, context.signal);
      },
    };
  }

  /** Calls the tool on the connection, inside the remote call's span when something traces. */
  #remoteCall(
    serverId: string,
    connection: ServerConnection,
    toolName: string,
    args: Record<string, unknown>,
    context: ToolContext,
  ): Promise<ToolOutput> {
    // Without an SDK a client span would only repeat the caller's context: no span, no closure.
    if (tracingIsOff()) return connection.callTool(toolName, args, context);
    return tracedRemoteCall(
      { serverId, toolName, context },
      (traced) => connection.callTool(toolName, args, traced),
    );
  }

  /** Refuses a call to a tool whose definition changed after it was exposed. */
  async #checkPin(
    pins: ToolPins,
    scope: { serverId: string; userId?: string; global?: boolean },
    toolName: string,
    connection: ServerConnection,
  ): Promise<void> {
    const refusal = await pins.refusal(scope, toolName, connection.tools);
    if (refusal !== undefined) {
      throw new ToolError("permission_denied", `Tool "${toolName}" was not called: ${refusal}`);
    }
  }

  /**
   * A server a tool list was answered without (it was still starting) is ready: announced once
   * per connection and list, as a change of the tools (`toolroute serve` tells its clients).
   */
  #arrived(server: SelectedServer, userId: string | undefined): void {
    const { connection } = server;
    if (this.#closed || this.#announced.get(connection) === connection.version) return;
    this.#announced.set(connection, connection.version);
    this.#settings.emit({
      type: "tools_changed",
      serverId: server.id,
      ...(server.user && userId !== undefined ? { userId } : {}),
      tools: connection.tools.length,
      message: "ready after a tool list was answered without it",
    });
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

  #emit(onEvent: ((event: McpGatewayEvent) => void) | undefined, event: McpGatewayEvent): void {
    try {
      onEvent?.(event);
    } catch {
      // An observer's failure must not change the gateway.
    }
  }
}

/** The `toolNames` option's store, checked. */
function toolNamesStore(option: McpGatewayOptions["toolNames"]): ToolNamesStore | undefined {
  if (option === undefined) return undefined;
  const store = option?.store;
  if (typeof store?.get !== "function" || typeof store?.set !== "function") {
    throw new TypeError(
      'Cannot create McpGateway: "toolNames.store" needs get and set; pass a KeyValueStore such as MemoryStore',
    );
  }
  return store;
}

/** The tier key of a user's own servers. */
function userTier(userId: string): string {
  return `user\u0000${userId}`;
}

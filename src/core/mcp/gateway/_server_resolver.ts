import type { GatewayRequest, GatewayResolution, MissingTool } from "../../tool_source.ts";
import { type GatewayServers, RemoteCallees } from "./_remote_callees.ts";
import { connectSelected, type SelectedServer } from "./connection/connect_selected.ts";
import type { ServerConnection } from "./connection/server_connection.ts";
import { serverOf } from "./connection/open_mcp_client.ts";
import type { McpGatewayEvent } from "./mcp_gateway_types.ts";
import { AuthorizationRequiredError } from "./oauth/authorization_required_error.ts";
import { pinSelected } from "./pinning/pin_selected.ts";
import type { ToolPins } from "./pinning/tool_pins.ts";
import { type KnownToolNames, toolNamesOf } from "./tools/known_tool_names.ts";
import type { RemoteRoutedTools } from "./tools/remote_routed_tools.ts";

/** What a {@linkcode ServerResolver} works with; the gateway owns each part. */
export interface ServerResolverParts {
  servers: GatewayServers;
  tools: RemoteRoutedTools;
  known: KnownToolNames;
  pins?: ToolPins;
  /** Most milliseconds a request waits for its servers' tool lists. */
  waitMs: number;
  emit: (event: McpGatewayEvent) => void;
  /** Whether the gateway is closed (nothing is announced then). */
  closed: () => boolean;
}

/**
 * Resolves the servers one request names into routed tools: the user's own and the global
 * servers, connected in parallel, named after every configured server's last known list, pinned,
 * and the ones that cannot be reached reported as missing.
 */
export class ServerResolver {
  #parts: ServerResolverParts;
  #callees: RemoteCallees;
  /** The tool list version of each connection whose late arrival was announced. */
  #announced = new WeakMap<ServerConnection, number>();

  /** @param parts The gateway's servers, tools, names, pins and events. */
  constructor(parts: ServerResolverParts) {
    this.#parts = parts;
    this.#callees = new RemoteCallees(parts.servers, parts.pins);
  }

  /**
   * Resolves one request's servers (see `McpGateway#resolve`).
   *
   * @param request The server ids, the user and a signal.
   * @returns The user's tools, the global tools and the missing servers.
   */
  async resolve(request: GatewayRequest): Promise<GatewayResolution> {
    const { userId } = request;
    const { servers, known, tools } = this.#parts;
    let { missing, connected, wanted } = await this.#connect(request);
    // A global server found just now to authorize each user: asked again through the user's own
    // connection (once), so the user is asked to sign in rather than told it is unavailable.
    if (
      userId !== undefined &&
      wanted.some((s) =>
        !s.user && s.connection === servers.global.get(s.id) && servers.perUser(s.id)
      )
    ) ({ missing, connected } = await this.#connect(request));
    missing.push(...connected.missing);
    // Names follow every configured server's last known list, before pins withhold anything. A
    // global server that authorizes each user lists on the user's own session: its names are
    // that user's, never another user's (who may not even have signed in).
    const globalIds = [...servers.global.keys()];
    const ownGlobal = userId === undefined ? [] : globalIds.filter((id) => servers.perUser(id));
    const globalTier = (id: string) => ownGlobal.includes(id) ? userGlobalTier(userId!) : "global";
    for (const { id, user, connection } of [...connected.user, ...connected.global]) {
      const tier = user ? userTier(userId!) : globalTier(id);
      known.update(tier, id, toolNamesOf(connection.tools));
    }
    // Servers that have not answered in this process name as the last run saw them.
    await Promise.all([
      known.restore("global", globalIds.filter((id) => !ownGlobal.includes(id))),
      userId === undefined ? undefined : known.restore(userTier(userId), servers.users.ids(userId)),
      ownGlobal.length === 0 ? undefined : known.restore(userGlobalTier(userId!), ownGlobal),
    ]);
    const { user, global, missing: withheld, cacheSuffix } = await pinSelected(
      this.#parts.pins,
      connected,
      { userId },
    );
    missing.push(...withheld);
    return {
      // Built also without a ready server: a missing server's tools get their names (see
      // `MissingTool.tools`), so a call to one names the server.
      user: userId === undefined ? [] : tools.build(
        "user_mcp",
        user,
        this.#callees.user(userId),
        `${userTier(userId)}${cacheSuffix}`,
        { lists: known.lists(userTier(userId), servers.users.ids(userId)), version: known.version },
        missing,
      ),
      global: servers.global.size === 0 ? [] : tools.build(
        "global_mcp",
        global,
        this.#callees.global,
        // Names of the user's own sessions make the build the user's.
        ownGlobal.length === 0
          ? `global${cacheSuffix}`
          : `${userGlobalTier(userId!)}${cacheSuffix}`,
        {
          lists: globalIds.flatMap((id) => known.lists(globalTier(id), [id])),
          version: known.version,
        },
        missing,
      ),
      missing,
    };
  }

  /**
   * Pins the current tool definitions of a server (see `McpGateway#acceptToolChanges`): the
   * user's own server's and the user's view of the global one, or the global server's
   * server-wide pins without a user. Throws a `TypeError` for no such server or pinning off.
   *
   * @param userId The user, or `undefined` for the server-wide pins.
   */
  async acceptTools(serverId: string, userId: string | undefined): Promise<void> {
    const { servers, pins } = this.#parts;
    const own = userId === undefined ? undefined : servers.users.connection(userId, serverId);
    const global = servers.global.get(serverId);
    const cannot = `Cannot accept the tools of MCP server "${serverId}"`;
    if (own === undefined && global === undefined) {
      const whose = userId === undefined
        ? "no global server"
        : `user "${userId}" has no server and there is no global server`;
      throw new TypeError(`${cannot}: ${whose} with this id`);
    }
    if (pins === undefined) throw new TypeError(`${cannot}: pinning is off ("pinning: false")`);
    if (own !== undefined) await pins.accept({ serverId, userId }, await own.listTools());
    // A user's acceptance of a global server's tools is that user's only.
    if (global !== undefined) {
      await pins.accept({ serverId, userId, global: true }, await global.listTools());
    }
  }

  /** Selects the named servers (user's first) and connects them in parallel. */
  async #connect(request: GatewayRequest) {
    const { userId, signal } = request;
    const { servers, waitMs } = this.#parts;
    const missing: MissingTool[] = [];
    const wanted: SelectedServer[] = [];
    // Held until listed: acquiring a later server must not evict an earlier one of this request.
    const holds: (() => void)[] = [];
    try {
      for (const id of new Set(request.serverIds)) {
        const mine = userId === undefined ? undefined : servers.users.connection(userId, id);
        if (mine !== undefined) {
          holds.push(mine.hold());
          wanted.push({ id, user: true, connection: mine });
        }
        const global = servers.global.get(id);
        if (global !== undefined && !servers.perUser(id)) {
          wanted.push({ id, user: false, connection: global });
        } else if (global !== undefined && userId === undefined) {
          const { message } = new AuthorizationRequiredError(id, { perUser: true });
          const reason = `the global MCP server is unavailable: ${message}`;
          missing.push({ selection: "mcpServers", name: id, reason });
        } else if (global !== undefined) {
          // The user's own session with the global server: their sign-in, their token.
          const own = servers.users.globalFor(userId!, id, servers.globalConfigs.get(id)!);
          holds.push(own.hold());
          wanted.push({ id, user: false, connection: own });
        }
        if (mine === undefined && global === undefined) {
          missing.push({ selection: "mcpServers", name: id, reason: "no MCP server has this id" });
        }
      }
      const connected = await connectSelected(wanted, {
        signal,
        waitMs,
        onArrived: (server) => this.#arrived(server),
      });
      return { missing, connected, wanted };
    } finally {
      for (const release of holds) release();
    }
  }

  /**
   * A server a tool list was answered without (it was still starting) is ready: announced once
   * per connection and list, as a change of the tools (`toolroute serve` tells its clients).
   */
  #arrived(server: SelectedServer): void {
    const { connection } = server;
    if (this.#parts.closed() || this.#announced.get(connection) === connection.version) return;
    this.#announced.set(connection, connection.version);
    this.#parts.emit({
      type: "tools_changed",
      // A user's own session (of their server, or of a global one that authorizes each user):
      // that user's change, told to no one else.
      ...serverOf(connection.settings),
      tools: connection.tools.length,
      message: "ready after a tool list was answered without it",
    });
  }
}

/** The tier key of a user's own servers (for their last known tool names). */
export function userTier(userId: string): string {
  return `user\u0000${userId}`;
}

/**
 * The tier key of a user's own sessions of global servers that authorize each user (for their
 * last known tool names).
 */
export function userGlobalTier(userId: string): string {
  return `user-global\u0000${userId}`;
}

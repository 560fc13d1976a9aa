import type { McpServerStatus } from "../mcp_gateway_types.ts";
import type { McpServerConfig } from "../../mcp_server_config.ts";
import { pairIndex } from "../connection/pair_index.ts";
import type { ServerConnection } from "../connection/server_connection.ts";
import { UserConnectionPool } from "./user_connection_pool.ts";

/** Prefixes the pool key of a user's connection to a global server (never a valid id start). */
const GLOBAL_PREFIX = "\u0000global:";

/** Options of {@linkcode UserServers}. */
export interface UserServersOptions {
  /** Idle time after which a connection is closed. */
  idleMs: number;
  /** Most open connections. */
  maxConnections: number;
  /** Makes a (lazy) connection for a user's server. */
  connect: (serverId: string, userId: string, config: McpServerConfig) => ServerConnection;
  /**
   * Told of each config removed (before its connection closes), so what was learnt with its
   * credentials is forgotten.
   */
  onRemoved?: (serverId: string, userId: string, config: McpServerConfig) => void;
  /** Told about connections closed for idleness or eviction. */
  onClose: (userId: string, serverId: string, reason: "idle" | "evicted") => void;
}

/**
 * Idle time after which a user's connection to a sessionless (2026-07-28) server lets go of its
 * SDK client: calls in a burst share one client, a user who pauses holds only credentials, tool
 * list and era verdict, and the next call builds a client without a round trip.
 */
const PARK_MS = 1_000;

/**
 * The per-user servers of a gateway: each user's configs, and their connections in a
 * {@linkcode UserConnectionPool}. A config is only ever reachable through its own user id.
 */
export class UserServers {
  /**
   * Each user's configs as `[id, config, id, config, ...]`: most users have one or two servers,
   * and a two-slot array weighs a fraction of a `Map` (a parked user holds little else).
   */
  #configs = new Map<string, (string | McpServerConfig)[]>();
  #pool: UserConnectionPool<ServerConnection>;
  #connect: UserServersOptions["connect"];
  #onRemoved: UserServersOptions["onRemoved"];

  constructor(options: UserServersOptions) {
    this.#connect = options.connect;
    this.#onRemoved = options.onRemoved;
    this.#pool = new UserConnectionPool<ServerConnection>({
      idleMs: options.idleMs,
      parkMs: PARK_MS,
      maxConnections: options.maxConnections,
      onClose: (userId, serverId, reason) =>
        options.onClose(userId, serverId.replace(GLOBAL_PREFIX, ""), reason),
    });
  }

  /**
   * Registers a server for a user; throws a `TypeError` when the user has this id already, or for
   * an id that starts with the prefix of the pool's keys of global servers.
   *
   * @param config The config (copied).
   */
  add(userId: string, id: string, config: McpServerConfig): void {
    if (id.startsWith("\u0000")) {
      // It would share the pool key of the user's own session with the global server of the rest.
      throw new TypeError(
        `Cannot add MCP server ${JSON.stringify(id)}: an id may not start with a NUL character`,
      );
    }
    const servers = this.#configs.get(userId);
    if (pairIndex(servers, id) >= 0) {
      throw new TypeError(
        `Cannot add MCP server "${id}": user "${userId}" has a server with this id`,
      );
    }
    const copy = copyOf(config);
    if (servers === undefined) this.#configs.set(userId, [id, copy]);
    else servers.push(id, copy);
  }

  /**
   * Forgets one server of a user (or all of them) and closes the connections.
   *
   * @param id The server id, or `undefined` for every server of the user.
   */
  async remove(userId: string, id?: string): Promise<void> {
    const servers = this.#configs.get(userId);
    if (servers === undefined) return;
    if (id === undefined) {
      this.#configs.delete(userId);
      for (let i = 0; i < servers.length; i += 2) {
        this.#onRemoved?.(servers[i] as string, userId, servers[i + 1] as McpServerConfig);
      }
    } else {
      const at = pairIndex(servers, id);
      if (at < 0) return;
      this.#onRemoved?.(id, userId, servers[at + 1] as McpServerConfig);
      servers.splice(at, 2);
      if (servers.length === 0) this.#configs.delete(userId);
    }
    await this.#pool.remove(userId, id);
  }

  /** The ids of a user's servers. */
  ids(userId: string): string[] {
    const servers = this.#configs.get(userId) ?? [];
    const ids: string[] = [];
    for (let i = 0; i < servers.length; i += 2) ids.push(servers[i] as string);
    return ids;
  }

  /**
   * The connection of a user's server, created when needed and marked used.
   *
   * @returns The connection, or `undefined` when the user has no such server.
   */
  connection(userId: string, id: string): ServerConnection | undefined {
    const servers = this.#configs.get(userId);
    const at = pairIndex(servers, id);
    if (at < 0) return undefined;
    const config = servers![at + 1] as McpServerConfig;
    return this.#pool.acquire(userId, id, () => this.#connect(id, userId, config));
  }

  /**
   * A user's own connection to a global server that authorizes each user (OAuth): its own
   * session and tokens, pooled with the user's servers (same limits, closed with the user's).
   *
   * @param id The global server's id.
   * @param config The global server's config.
   */
  globalFor(userId: string, id: string, config: McpServerConfig): ServerConnection {
    return this.#pool.acquire(userId, GLOBAL_PREFIX + id, () => this.#connect(id, userId, config));
  }

  /**
   * Closes every user's connection to a global server (removed from the gateway).
   *
   * @param id The global server's id.
   */
  async removeGlobal(id: string): Promise<void> {
    await this.#pool.removeServer(GLOBAL_PREFIX + id);
  }

  /**
   * The status of every user's servers (`closed` when not connected).
   *
   * @returns One entry per (user, server).
   */
  status(): McpServerStatus[] {
    const out: McpServerStatus[] = [];
    for (const userId of this.#configs.keys()) {
      for (const id of this.ids(userId)) {
        out.push(
          this.#pool.peek(userId, id)?.status() ??
            { id, userId, state: "closed", tools: 0, reconnectAttempts: 0 },
        );
      }
    }
    return out;
  }

  /** Forgets every config and closes every connection. */
  async close(): Promise<void> {
    this.#configs.clear();
    await this.#pool.close();
  }
}

/**
 * A copy of a config, so the host's later changes do not reach it: its objects and arrays are
 * new, its strings the host's own (a string cannot change; `structuredClone` would copy the URL
 * and every header value once per user). Anything else is cloned as `structuredClone` does (and
 * refused as it refuses, e.g. a function).
 */
function copyOf<T>(value: T): T {
  if (typeof value !== "object" || value === null) {
    return typeof value === "function" ? structuredClone(value) : value;
  }
  if (Array.isArray(value)) return value.map((item) => copyOf(item)) as T;
  if (Object.getPrototypeOf(value) !== Object.prototype) return structuredClone(value);
  // A spread copies the host's object as it is laid out (no room for properties it lacks).
  const copy = { ...value } as Record<string, unknown>;
  for (const key of Object.keys(copy)) {
    if (typeof copy[key] === "object" || typeof copy[key] === "function") {
      copy[key] = copyOf(copy[key]);
    }
  }
  return copy as T;
}

/** What the pool needs of a connection. */
export interface PooledConnection {
  /**
   * Uses running now (calls, listings, holds); a connection in use is never closed for idleness
   * or evicted, so the limit is exceeded while every connection is in use.
   */
  readonly inFlight: number;
  /**
   * When it was last used (`performance.now()`): never goes back, and is set again when a use
   * ends, so the pool can tell when the next connection may have become idle.
   */
  readonly lastUsedAt: number;
  /** Closes it. */
  close(): Promise<void>;
  /**
   * Whether it holds state it can let go of while idle and rebuild on the next use without a
   * round trip (see `park`).
   */
  readonly parkable?: boolean;
  /** Lets go of that state (an idle connection of a sessionless server: its client). */
  park?(): void;
}

/** Options of {@linkcode UserConnectionPool}. */
export interface UserConnectionPoolOptions<C extends PooledConnection> {
  /** Idle time after which a connection is closed. */
  idleMs: number;
  /**
   * Most open connections; the least recently used one not in use is closed first, when one is
   * acquired or the idle timer runs.
   */
  maxConnections: number;
  /**
   * Idle time after which a parkable connection is parked (it stays open and pooled, lighter).
   * Default: never.
   */
  parkMs?: number;
  /** Told about each connection the pool closes by itself. */
  onClose?: (userId: string, serverId: string, reason: "idle" | "evicted") => void;
}

/**
 * One connection per (user, server), reused across requests, closed after `idleMs` without use,
 * at most `maxConnections` open with least-recently-used eviction.
 */
export class UserConnectionPool<C extends PooledConnection> {
  #options: UserConnectionPoolOptions<C>;
  /**
   * The connections by key (see `keyOf`: the user and server are read back from it, so an entry
   * is the connection alone, no record per user). Insertion order is recency order: a used
   * entry is moved to the end.
   */
  #entries = new Map<string, C>();
  #timer?: ReturnType<typeof setTimeout>;
  /** When the timer runs (`performance.now()`), `Infinity` without one. */
  #timerAt = Infinity;
  #closing = new Set<Promise<void>>();
  /**
   * No connection can have been idle for `idleMs` before this time (the earliest `lastUsedAt +
   * idleMs` at the last sweep, or of a connection added since): `acquire` sweeps only from then
   * on, so a request does not pay for a scan of every user's connection.
   */
  #idleCheckAt = Infinity;

  constructor(options: UserConnectionPoolOptions<C>) {
    this.#options = options;
  }

  get size(): number {
    return this.#entries.size;
  }

  /**
   * Returns the connection of a user's server, creating it when there is none, and marks it used.
   *
   * @param create Makes the connection.
   */
  acquire(userId: string, serverId: string, create: () => C): C {
    // Also swept here: edge runtimes run timers only while a request runs.
    if (performance.now() >= this.#idleCheckAt) this.#sweepIdle();
    const key = keyOf(userId, serverId);
    let connection = this.#entries.get(key);
    if (connection !== undefined) this.#entries.delete(key);
    else {
      connection = create();
      this.#idleCheckAt = Math.min(this.#idleCheckAt, connection.lastUsedAt + this.#options.idleMs);
    }
    this.#entries.set(key, connection);
    this.#evict(key);
    this.#touched();
    return connection;
  }

  /**
   * Returns the connection of a user's server, if open, without marking it used.
   *
   * @returns The connection, or `undefined`.
   */
  peek(userId: string, serverId: string): C | undefined {
    return this.#entries.get(keyOf(userId, serverId));
  }

  /**
   * Closes and forgets the connections of a user (one server, or all when `serverId` is absent).
   *
   * @param serverId The server id, or `undefined` for every server of the user.
   */
  async remove(userId: string, serverId?: string): Promise<void> {
    const only = serverId === undefined ? undefined : keyOf(userId, serverId);
    const prefix = keyOf(userId, "");
    await this.#removeWhere((key) => only === undefined ? key.startsWith(prefix) : key === only);
  }

  /** Closes and forgets every user's connection to one server. */
  async removeServer(serverId: string): Promise<void> {
    await this.#removeWhere((key) => partsOf(key).serverId === serverId);
  }

  async #removeWhere(matches: (key: string) => boolean): Promise<void> {
    const closing: Promise<void>[] = [];
    for (const [key, connection] of this.#entries) {
      if (!matches(key)) continue;
      this.#entries.delete(key);
      closing.push(connection.close());
    }
    await Promise.allSettled(closing);
  }

  /** Closes every connection and stops the idle timer. */
  async close(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = Infinity;
    const all = [...this.#entries.values()];
    this.#entries.clear();
    await Promise.allSettled([...all.map((connection) => connection.close()), ...this.#closing]);
  }

  /** Closes the least recently used connections not in use (nor `keep`) over the limit. */
  #evict(keep?: string): void {
    if (this.#entries.size <= this.#options.maxConnections) return;
    for (const [key, connection] of this.#entries) {
      if (this.#entries.size <= this.#options.maxConnections) break;
      if (connection.inFlight > 0 || key === keep) continue;
      this.#drop(key, connection, "evicted");
    }
  }

  #sweep(): void {
    this.#timer = undefined;
    this.#timerAt = Infinity;
    this.#sweepIdle();
    this.#evict();
    this.#schedule();
  }

  #sweepIdle(): void {
    const now = performance.now();
    const { idleMs, parkMs = Infinity } = this.#options;
    // A connection in use now is used until at least now: idle no sooner than now + idleMs.
    let next = now + idleMs;
    for (const [key, connection] of this.#entries) {
      const { inFlight, lastUsedAt } = connection;
      if (inFlight > 0) continue;
      if (now - lastUsedAt >= idleMs) this.#drop(key, connection, "idle");
      else {
        if (connection.parkable === true && now - lastUsedAt >= parkMs) connection.park?.();
        next = Math.min(next, lastUsedAt + idleMs);
      }
    }
    this.#idleCheckAt = this.#entries.size === 0 ? Infinity : next;
  }

  /**
   * Keeps the timer due when the connection just handed out may need it (parked, or closed for
   * idleness): that is no sooner than `min(parkMs, idleMs)` from now, and every other
   * connection's time is already covered by the timer set. So a use only moves the timer
   * earlier, without reading any other connection (a scan per use made a cold connect cost more
   * the more users are pooled); the sweep reads them all, once per run.
   */
  #touched(): void {
    const { idleMs, parkMs = Infinity } = this.#options;
    const now = performance.now();
    const due = now + Math.min(idleMs, parkMs);
    if (this.#timerAt <= due + PARK_SLACK_MS) return;
    clearTimeout(this.#timer);
    this.#timerAt = due;
    this.#timer = setTimeout(() => this.#sweep(), Math.max(due - now, 10));
  }

  #schedule(): void {
    if (this.#timer !== undefined || this.#entries.size === 0) return;
    const now = performance.now();
    const { idleMs, parkMs = Infinity } = this.#options;
    let due = Infinity;
    for (const connection of this.#entries.values()) {
      const { inFlight, lastUsedAt, parkable } = connection;
      const after = inFlight > 0 || parkable === true ? Math.min(idleMs, parkMs) : idleMs;
      due = Math.min(due, (inFlight > 0 ? now : lastUsedAt) + after);
    }
    const wait = Math.max(due - now, 10);
    this.#timerAt = now + wait;
    this.#timer = setTimeout(() => this.#sweep(), wait);
  }

  #drop(key: string, connection: C, reason: "idle" | "evicted"): void {
    this.#entries.delete(key);
    const closing = connection.close().catch(() => {});
    this.#closing.add(closing);
    closing.finally(() => this.#closing.delete(closing));
    const { userId, serverId } = partsOf(key);
    this.#options.onClose?.(userId, serverId, reason);
  }
}

/** How much later than due the timer may run before a use moves it earlier (fewer timers). */
const PARK_SLACK_MS = 250;

/** The pool key: the user's length first, so the user and server read back exactly (any text). */
function keyOf(userId: string, serverId: string): string {
  return `${userId.length}:${userId}\u0000${serverId}`;
}

/** The user and server of a pool key (see `keyOf`). */
function partsOf(key: string): { userId: string; serverId: string } {
  const colon = key.indexOf(":");
  const start = colon + 1;
  const end = start + Number(key.slice(0, colon));
  return { userId: key.slice(start, end), serverId: key.slice(end + 1) };
}

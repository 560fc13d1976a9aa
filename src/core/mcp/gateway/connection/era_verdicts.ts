import { type PriorDiscovery, SdkHttpError, SseError } from "../../mcp_sdk.ts";

/** Which connection a verdict belongs to. */
export interface EraKey {
  serverId: string;
  /** The user, for a connection of one user (own server, or a global one authorized per user). */
  userId?: string;
  /** What the config says about where and how to connect (URL or command, and `protocol`). */
  target: string;
}

/** Options of {@linkcode EraVerdicts}. */
export interface EraVerdictsOptions {
  /** Most verdicts kept; the least recently used goes first. Default: 10,000. */
  maxEntries?: number;
  /**
   * Age after which a 2025-era verdict is asked again (a server upgraded since still answers
   * `initialize`, so a stale one would never show). Default: one hour.
   */
  legacyMaxAgeMs?: number;
}

/**
 * The protocol era each connection found, so that the next connect of the same server (after a
 * lost connection, an idle close or an eviction from the user pool) skips the `server/discover`
 * round trip: a 2026-07-28 server's discover result is adopted as it was, a 2025 server gets
 * `initialize` at once. Verdicts are kept per server and per user, and per target (a changed URL
 * or `protocol` asks again): one user's answer never stands for another's credentials. A connect
 * that fails forgets the verdict, so a server that changed era is asked again. The bound drops
 * the least recently used user of the least recently used server first.
 */
export class EraVerdicts {
  /**
   * Verdicts by server and target, then by user (`undefined` for a global connection): a user's
   * entry is keyed by the user id string the connection already holds, and a 2026-07-28 verdict
   * is the shared answer itself, so a pooled user adds one map slot, no key text or wrapper.
   */
  #byServer = new Map<string, Map<string | undefined, Held>>();
  #size = 0;
  /**
   * One verdict object per distinct answer: thousands of users of one server hold the same one
   * (a server that answers users differently gets one per answer, up to the bound).
   */
  #priors = new Map<string, PriorDiscovery>();
  #max: number;
  #legacyMaxAgeMs: number;
  /**
   * The 2025-era verdict of the moment, with its time: the users whose verdict is set within a
   * 64th of `legacyMaxAgeMs` of one another share it (asked again that much sooner, at most),
   * so a pooled 2025 user adds no object of its own either.
   */
  #agedNow?: Aged;

  /**
   * Creates an empty store.
   *
   * @param options Bound and age of 2025-era verdicts.
   */
  constructor(options: EraVerdictsOptions = {}) {
    this.#max = options.maxEntries ?? 10_000;
    this.#legacyMaxAgeMs = options.legacyMaxAgeMs ?? 3_600_000;
  }

  /** How many verdicts are kept (for tests). */
  get size(): number {
    return this.#size;
  }

  /**
   * The verdict of a connection, if one is known and still fresh.
   *
   * @returns The verdict to connect with.
   */
  get(key: EraKey): PriorDiscovery | undefined {
    const id = serverKeyOf(key);
    const users = this.#byServer.get(id);
    const held = users?.get(key.userId);
    if (users === undefined || held === undefined) return undefined;
    if (held.kind === "aged" && performance.now() - held.at > this.#legacyMaxAgeMs) {
      this.#delete(id, users, key.userId);
      return undefined;
    }
    // Re-inserted: most recently used last, the user within its server and the server.
    users.delete(key.userId);
    users.set(key.userId, held);
    this.#byServer.delete(id);
    this.#byServer.set(id, users);
    return held.kind === "aged" ? held.prior : held;
  }

  /**
   * Keeps the verdict of a connection that succeeded.
   *
   * @param prior What it found.
   */
  set(key: EraKey, prior: PriorDiscovery): void {
    this.forget(key);
    // A server's discover answer is kept as it came: one too large to hold for thousands of
    // connections (a hostile per-user server's) is not kept, and that server is asked again.
    const shared = sharedByJson(this.#priors, { value: prior, make: () => prior });
    if (shared === undefined) return;
    if (this.#size >= this.#max) this.#evictOldest();
    const id = serverKeyOf(key);
    let users = this.#byServer.get(id);
    if (users === undefined) this.#byServer.set(id, users = new Map());
    // Only a 2025 verdict ages: it alone carries its time.
    users.set(key.userId, shared.kind === "legacy" ? this.#aged(shared) : shared);
    this.#size++;
  }

  /**
   * Forgets the verdict of a connection (its connect failed).
   */
  forget(key: EraKey): void {
    const id = serverKeyOf(key);
    const users = this.#byServer.get(id);
    if (users?.has(key.userId)) this.#delete(id, users, key.userId);
  }

  /**
   * Forgets the verdicts of every user of a server at a target (the server was removed): a
   * server added again under the id may carry other credentials (its headers are no part of the
   * key), and a verdict found with one credential must not stand for another's.
   *
   * @param key The server and target (any `userId` is ignored).
   */
  forgetServer(key: EraKey): void {
    const id = serverKeyOf(key);
    const users = this.#byServer.get(id);
    if (users === undefined) return;
    this.#size -= users.size;
    this.#byServer.delete(id);
  }

  /** A 2025-era verdict with its time, shared with those set at about the same time. */
  #aged(prior: PriorDiscovery): Aged {
    const now = performance.now();
    const current = this.#agedNow;
    if (current?.prior === prior && now - current.at <= this.#legacyMaxAgeMs / 64) return current;
    return this.#agedNow = { kind: "aged", prior, at: now };
  }

  /** Drops the least recently used verdict of the least recently used server. */
  #evictOldest(): void {
    const [id, users] = this.#byServer.entries().next().value!;
    this.#delete(id, users, users.keys().next().value);
  }

  #delete(id: string, users: Map<string | undefined, Held>, userId: string | undefined): void {
    users.delete(userId);
    this.#size--;
    if (users.size === 0) this.#byServer.delete(id);
  }
}

/** A kept verdict: a 2026-07-28 one as it is, a 2025 one with when it was found. */
type Held = PriorDiscovery | Aged;
type Aged = { kind: "aged"; prior: PriorDiscovery; at: number };

/**
 * The one object `pool` holds for a value's JSON text, made with `make` the first time: an answer
 * thousands of connections got alike (a discover verdict, a handshake) is held once. Past 256
 * texts the sharing starts over (answers stay correct, less shared); `undefined` for a value of
 * more than 64 KiB as JSON, too large to key by.
 */
export function sharedByJson<T>(
  pool: Map<string, T>,
  { value, make }: { value: unknown; make: () => T },
): T | undefined {
  const json = JSON.stringify(value);
  if (json.length > 64 * 1024) return undefined;
  let shared = pool.get(json);
  if (shared === undefined) {
    if (pool.size >= 256) pool.clear();
    pool.set(json, shared = make());
  }
  return shared;
}

function serverKeyOf(key: EraKey): string {
  // A server id can hold any character: JSON keeps the parts apart.
  return JSON.stringify([key.serverId, key.target]);
}

/**
 * Whether the server refused a request unrun as one of a kind or era it does not speak (HTTP 400,
 * 404 or 405): a first connect then tries the other transport kind, and a request on a client
 * built from a kept verdict (no round trip) forgets the verdict and is sent once more (a server
 * that changed era while its users were parked would fail every call otherwise).
 *
 * @param error What the request or connect threw (the SDK's error).
 */
export function refusedAsUnsupported(error: unknown): boolean {
  const status = error instanceof SdkHttpError
    ? error.status
    : error instanceof SseError
    ? error.code
    : undefined;
  return [400, 404, 405].includes(status ?? 0);
}

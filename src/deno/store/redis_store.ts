import {
  checkExpireIn,
  incrementBy,
  type KeyValueEntry,
  type KeyValueIncrementOptions,
  type KeyValueSetOptions,
  type KeyValueStore,
} from "../../core/store/key_value_store.ts";
import { checkKey, encodeValue, notANumber } from "./_store_input.ts";

/** The part of a node-redis client this store uses. */
export interface RedisClientLike {
  /** Runs a Lua script atomically on the server. */
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  /** Reads fields of a hash. */
  hmGet(key: string, fields: string[]): Promise<(string | null)[]>;
  /** Deletes keys. */
  del(key: string): Promise<unknown>;
  /** Iterates keys matching a pattern. */
  scan(
    cursor: string,
    options: { MATCH: string; COUNT: number },
  ): Promise<{ cursor: string; keys: string[] }>;
  /** Closes the connection. */
  close?(): Promise<unknown>;
  /** Closes the connection (older clients). */
  quit?(): Promise<unknown>;
}

/** Options of {@linkcode RedisStore}. */
export interface RedisStoreOptions {
  /** The clock that checks stored deadlines (for tests). Default: `Date.now`. */
  now?: () => number;
  /** What every Redis key of this store starts with. Default: `"toolroute:"`. */
  prefix?: string;
}

// Each value is a hash: `v` the JSON, `e` the deadline by the store's clock (absent: none). Redis
// drops the key itself a minute after the deadline, so a clock a little ahead never sees it early.
const GRACE_MS = 60_000;
const WRITE = `
redis.call('DEL', KEYS[1])
if ARGV[2] == '' then
  redis.call('HSET', KEYS[1], 'v', ARGV[1])
else
  redis.call('HSET', KEYS[1], 'v', ARGV[1], 'e', ARGV[2])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
end`;
const LIVE = `
local function live(now)
  local v = redis.call('HGET', KEYS[1], 'v')
  if not v then return nil end
  local e = redis.call('HGET', KEYS[1], 'e')
  if e and tonumber(e) <= tonumber(now) then return nil end
  return v
end`;
const SET = `${WRITE}\nreturn 1`;
const SET_IF_ABSENT = `${LIVE}
if live(ARGV[4]) then return 0 end
${WRITE}
return 1`;
const INCREMENT = `${LIVE}
local v = live(ARGV[4])
local n = 0
if v then
  if not string.find(v, '^%-?%d+$') then return redis.error_reply('NOT_A_NUMBER') end
  n = tonumber(v)
end
n = n + tonumber(ARGV[1])
local text = string.format('%d', n)
if ARGV[2] ~= '' then
  redis.call('HSET', KEYS[1], 'v', text, 'e', ARGV[2])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
elseif v then
  redis.call('HSET', KEYS[1], 'v', text)
else
  redis.call('DEL', KEYS[1])
  redis.call('HSET', KEYS[1], 'v', text)
end
return text`;

/**
 * A {@linkcode KeyValueStore} in Redis (the maintained `@redis/client`), for routers and
 * gateways on several machines that share limits, approvals, pins and OAuth state. Every write
 * is one Lua script, so `setIfAbsent` and `increment` are atomic across all clients.
 *
 * Requires `allow-net` to the Redis server.
 *
 * @example Share one limit between routers on several machines
 * ```ts ignore
 * import { RedisStore } from "@toolroute/toolroute/deno";
 * import { ToolRouter } from "@toolroute/toolroute";
 *
 * await using store = await RedisStore.connect("redis://127.0.0.1:6379");
 * const router = new ToolRouter({
 *   store,
 *   policy: { limits: [{ match: "send_email", max: 100, windowMs: 60_000, per: "router" }] },
 * });
 * ```
 *
 * @tags allow-net
 */
export class RedisStore implements KeyValueStore, AsyncDisposable {
  #client: RedisClientLike;
  #now: () => number;
  #prefix: string;

  /**
   * Wraps a connected node-redis client (the store does not close it unless asked).
   *
   * @param client The client (`await createClient({ url }).connect()`).
   * @param options The clock and the key prefix.
   */
  constructor(client: RedisClientLike, options: RedisStoreOptions = {}) {
    this.#client = client;
    this.#now = options.now ?? Date.now;
    this.#prefix = options.prefix ?? "toolroute:";
  }

  /**
   * Connects to Redis at `url` (`redis://[user:password@]host:port[/db]`, `rediss://` for TLS).
   * Rejects when the server cannot be reached.
   *
   * @param url The server's URL.
   * @param options The clock and the key prefix.
   * @returns The store; close it with `close()` (or `await using`).
   */
  static async connect(url: string, options: RedisStoreOptions = {}): Promise<RedisStore> {
    // Loaded here, not with the module: the client is the largest package of the Deno entry and
    // of the CLI, and only a Redis store needs it (every `toolroute` start would load it).
    const { createClient } = await import("@redis/client");
    const client = createClient({
      url,
      // Fail fast instead of retrying for ever: a store that is down is reported to the caller.
      socket: { reconnectStrategy: (retries: number) => retries > 5 ? false : 100 * retries },
    });
    // The client reports connection trouble as events; each command rejects on its own.
    client.on("error", () => {});
    await client.connect();
    return new RedisStore(client as unknown as RedisClientLike, options);
  }

  async get<T = unknown>(key: readonly string[]): Promise<T | undefined> {
    return await this.#read(this.#key(key)) as T | undefined;
  }

  async set(
    key: readonly string[],
    value: unknown,
    options: KeyValueSetOptions = {},
  ): Promise<void> {
    const k = this.#key(key);
    await this.#client.eval(SET, { keys: [k], arguments: this.#write(value, options) });
  }

  async setIfAbsent(
    key: readonly string[],
    value: unknown,
    options: KeyValueSetOptions = {},
  ): Promise<boolean> {
    const k = this.#key(key);
    const stored = await this.#client.eval(SET_IF_ABSENT, {
      keys: [k],
      arguments: [...this.#write(value, options), String(this.#now())],
    });
    return Number(stored) === 1;
  }

  async increment(
    key: readonly string[],
    options: KeyValueIncrementOptions = {},
  ): Promise<number> {
    const k = this.#key(key);
    const by = incrementBy(options);
    const expiry = this.#expiry(options.expireIn);
    try {
      const text = await this.#client.eval(INCREMENT, {
        keys: [k],
        arguments: [String(by), ...expiry, String(this.#now())],
      });
      return Number(text);
    } catch (error) {
      if (error instanceof Error && /NOT_A_NUMBER/.test(error.message)) {
        throw notANumber(key);
      }
      throw error;
    }
  }

  async delete(key: readonly string[]): Promise<void> {
    await this.#client.del(this.#key(key));
  }

  async list<T = unknown>(prefix: readonly string[]): Promise<KeyValueEntry<T>[]> {
    // Keys are JSON arrays: every key under `["a","b"]` starts with `["a","b",`.
    const start = prefix.length === 0 ? "[" : `${JSON.stringify(checkKey(prefix)).slice(0, -1)},`;
    const match = globEscape(this.#prefix + start) + "*";
    const names = new Set<string>();
    let cursor = "0";
    do {
      const page = await this.#client.scan(cursor, { MATCH: match, COUNT: 1000 });
      cursor = String(page.cursor);
      for (const name of page.keys) names.add(name);
    } while (cursor !== "0");
    const sorted = [...names].sort();
    const values = await Promise.all(sorted.map((name) => this.#read(name)));
    return sorted.flatMap((name, index) =>
      values[index] === undefined
        ? []
        : [{ key: JSON.parse(name.slice(this.#prefix.length)), value: values[index] as T }]
    );
  }

  /** Closes the connection. */
  async close(): Promise<void> {
    await (this.#client.close?.() ?? this.#client.quit?.());
  }

  /** Same as {@linkcode RedisStore#close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #key(key: readonly string[]): string {
    return this.#prefix + JSON.stringify(checkKey(key));
  }

  #write(value: unknown, options: KeyValueSetOptions): string[] {
    return [encodeValue(value), ...this.#expiry(options.expireIn)];
  }

  /** The deadline and Redis's own expiry, or two empty strings for none. */
  #expiry(expireIn: number | undefined): [string, string] {
    const ms = checkExpireIn(expireIn);
    if (ms === undefined) return ["", ""];
    return [String(this.#now() + ms), String(Math.ceil(ms) + GRACE_MS)];
  }

  /** The live value of a Redis key, parsed; `undefined` when absent or past its deadline. */
  async #read(name: string): Promise<unknown> {
    const [value, deadline] = await this.#client.hmGet(name, ["v", "e"]);
    const expired = deadline !== null && Number(deadline) <= this.#now();
    return value === null || expired ? undefined : JSON.parse(value);
  }
}

/** Escapes Redis's glob characters, so a key prefix matches only itself. */
function globEscape(text: string): string {
  return text.replace(/[*?[\]\\]/g, "\\$&");
}

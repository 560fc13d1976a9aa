import { delay } from "@std/async";
import {
  checkExpireIn,
  incrementBy,
  type KeyValueEntry,
  type KeyValueIncrementOptions,
  type KeyValueSetOptions,
  type KeyValueStore,
} from "../../core/store/key_value_store.ts";
import { checkKey, encodeValue, notANumber } from "./_store_input.ts";

/**
 * The part of a `Deno.Kv` this adapter uses, typed here so that the module type-checks without
 * Deno's unstable types.
 */
export interface DenoKvLike {
  /** Reads one key. */
  get(key: string[]): Promise<{ value: unknown; versionstamp: string | null }>;
  /** Writes one key. */
  set(key: string[], value: unknown, options?: { expireIn?: number }): Promise<unknown>;
  /** Deletes one key. */
  delete(key: string[]): Promise<void>;
  /** Lists keys under a prefix. */
  list(selector: { prefix: string[] }): AsyncIterable<{ key: unknown[]; value: unknown }>;
  /** Starts an atomic operation. */
  atomic(): DenoKvAtomicLike;
  /** Closes the database. */
  close(): void;
}

/** The part of `Deno.AtomicOperation` this adapter uses. */
export interface DenoKvAtomicLike {
  /** Fails the commit unless `key` still has `versionstamp` (`null`: holds nothing). */
  check(check: { key: string[]; versionstamp: string | null }): DenoKvAtomicLike;
  /** Writes a key on commit. */
  set(key: string[], value: unknown, options?: { expireIn?: number }): DenoKvAtomicLike;
  /** Commits; `ok` is `false` when a check failed. */
  commit(): Promise<{ ok: boolean }>;
}

/**
 * A {@linkcode KeyValueStore} over Deno KV, for state several instances share: locally one
 * SQLite-backed KV file (`Deno.openKv(path)`), on Deno Deploy the global KV (`Deno.openKv()`).
 * `setIfAbsent` and `increment` are atomic check-and-sets. Deno KV is an unstable API: it needs the
 * `--unstable-kv` flag (or `"unstable": ["kv"]` in `deno.json`); on Deno Deploy it is on.
 * Expiry is Deno KV's own (`expireIn`), which deletes lazily: an expired value may be read for a
 * while, so single-use ids also store their deadline.
 *
 * @example Open a shared store (run with `--unstable-kv`)
 * ```ts ignore
 * import { DenoKvStore } from "@toolroute/toolroute/deno";
 * import { McpGateway } from "@toolroute/toolroute/mcp";
 *
 * const store = await DenoKvStore.open("./toolroute-state.kv");
 * const gateway = new McpGateway({ pinning: { store } });
 * ```
 *
 * @tags allow-read, allow-write
 */
export class DenoKvStore implements KeyValueStore, Disposable {
  #kv: DenoKvLike;
  #now: () => number;

  /**
   * Wraps an open `Deno.Kv`.
   *
   * @param kv The database (`await Deno.openKv(...)`).
   * @param options `now`: the clock that checks stored deadlines (for tests).
   */
  constructor(kv: DenoKvLike, options: { now?: () => number } = {}) {
    this.#kv = kv;
    this.#now = options.now ?? Date.now;
  }

  /**
   * Opens Deno KV at `path` (or the default database) and wraps it. Throws a `TypeError` naming
   * the flag when Deno KV is not enabled.
   *
   * @param path A file for a local database; absent for Deno Deploy's or the default one.
   */
  static async open(path?: string): Promise<DenoKvStore> {
    const unstable = new TypeError(
      "Cannot open Deno KV: it is unstable; run deno with --unstable-kv (or use SqliteStore)",
    );
    const openKv = (Deno as unknown as { openKv?: (path?: string) => Promise<DenoKvLike> }).openKv;
    if (typeof openKv !== "function") throw unstable;
    try {
      return new DenoKvStore(await openKv(path));
    } catch (error) {
      if (error instanceof Error && /unstable/i.test(error.message)) throw unstable;
      throw error;
    }
  }

  async get<T = unknown>(key: readonly string[]): Promise<T | undefined> {
    const k = checkKey(key);
    const entry = await retryLocked(() => this.#kv.get(k));
    return this.#live(entry.value) as T | undefined;
  }

  async set(
    key: readonly string[],
    value: unknown,
    options: KeyValueSetOptions = {},
  ): Promise<void> {
    const k = checkKey(key);
    const wrapped = this.#wrap(value, options);
    await retryLocked(() => this.#kv.set(k, wrapped, kvOptions(options)));
  }

  async setIfAbsent(
    key: readonly string[],
    value: unknown,
    options: KeyValueSetOptions = {},
  ): Promise<boolean> {
    const k = checkKey(key);
    const wrapped = this.#wrap(value, options);
    for (;;) {
      const entry = await retryLocked(() => this.#kv.get(k));
      if (entry.versionstamp !== null && this.#live(entry.value) !== undefined) return false;
      const { ok } = await retryLocked(() =>
        this.#kv.atomic().check({ key: k, versionstamp: entry.versionstamp })
          .set(k, wrapped, kvOptions(options)).commit()
      );
      if (ok) return true;
      // Someone wrote in between: look again (it may have expired meanwhile).
    }
  }

  async increment(
    key: readonly string[],
    options: KeyValueIncrementOptions = {},
  ): Promise<number> {
    const k = checkKey(key);
    const by = incrementBy(options);
    for (;;) {
      const entry = await retryLocked(() => this.#kv.get(k));
      const stored = entry.versionstamp === null ? undefined : entry.value;
      const current = this.#live(stored) ?? 0;
      if (typeof current !== "number") throw notANumber(key);
      const next = current + by;
      // Without a new expiry a live entry keeps its deadline (Deno KV's own one goes with it).
      const kept = this.#live(stored) === undefined
        ? undefined
        : (stored as { expiresAt?: number }).expiresAt;
      const expireIn = options.expireIn ??
        (kept === undefined ? undefined : Math.max(1, kept - this.#now()));
      const wrapped = this.#wrap(next, { expireIn });
      const { ok } = await retryLocked(() =>
        this.#kv.atomic().check({ key: k, versionstamp: entry.versionstamp })
          .set(k, wrapped, kvOptions({ expireIn })).commit()
      );
      if (ok) return next;
      // Another writer came first: count again from what it wrote.
    }
  }

  async delete(key: readonly string[]): Promise<void> {
    const k = checkKey(key);
    await retryLocked(() => this.#kv.delete(k));
  }

  async list<T = unknown>(prefix: readonly string[]): Promise<KeyValueEntry<T>[]> {
    const entries: KeyValueEntry<T>[] = [];
    for await (const entry of this.#kv.list({ prefix: [...prefix] })) {
      const value = this.#live(entry.value);
      if (value !== undefined) entries.push({ key: entry.key.map(String), value: value as T });
    }
    return entries;
  }

  /** Closes the database. */
  close(): void {
    this.#kv.close();
  }

  /** Same as {@linkcode DenoKvStore#close}, for `using`. */
  [Symbol.dispose](): void {
    this.close();
  }

  #wrap(value: unknown, options: KeyValueSetOptions): { json: string; expiresAt?: number } {
    const json = encodeValue(value);
    const expireIn = checkExpireIn(options.expireIn);
    return expireIn === undefined ? { json } : { json, expiresAt: this.#now() + expireIn };
  }

  #live(stored: unknown): unknown {
    if (stored === null || typeof stored !== "object") return undefined;
    const { json, expiresAt } = stored as { json?: unknown; expiresAt?: unknown };
    if (typeof json !== "string") return undefined;
    if (typeof expiresAt === "number" && expiresAt <= this.#now()) return undefined;
    return JSON.parse(json);
  }
}

/**
 * Runs a Deno KV operation again while a local database file is locked by another handle or
 * process ("database is locked"), for up to about two seconds.
 */
async function retryLocked<T>(operation: () => Promise<T>): Promise<T> {
  for (let attempt = 0;; attempt++) {
    try {
      return await operation();
    } catch (error) {
      if (attempt >= 100 || !(error instanceof Error && /database is locked/.test(error.message))) {
        throw error;
      }
      await delay(2 + Math.random() * 20);
    }
  }
}

function kvOptions(options: KeyValueSetOptions): { expireIn?: number } | undefined {
  const expireIn = checkExpireIn(options.expireIn);
  return expireIn === undefined ? undefined : { expireIn };
}

import { DatabaseSync, type StatementSync } from "node:sqlite";
import {
  checkExpireIn,
  incrementBy,
  type KeyValueEntry,
  type KeyValueIncrementOptions,
  type KeyValueSetOptions,
  type KeyValueStore,
} from "../../core/store/key_value_store.ts";
import { checkKey, encodeValue, notANumber } from "./_store_input.ts";

/** Options of {@linkcode SqliteStore}. */
export interface SqliteStoreOptions {
  /** The clock used for `expireIn` (for tests). Default: `Date.now`. */
  now?: () => number;
  /** How long a write waits for another process's lock, in milliseconds. Default: 5000. */
  busyTimeoutMs?: number;
}

/**
 * A {@linkcode KeyValueStore} in one SQLite file (through `node:sqlite`, no unstable flag): it
 * survives restarts, and several processes on one machine can share it, with
 * `setIfAbsent` and `increment` atomic across them (SQLite's locking; WAL journal, so readers do
 * not wait).
 *
 * Requires `allow-read` and `allow-write` permission for the file (SQLite keeps `-wal` and
 * `-shm` files beside it).
 *
 * @example Pins that outlive the process
 * ```ts
 * import { assertEquals } from "@std/assert";
 * import { SqliteStore } from "@toolroute/toolroute/deno";
 *
 * const path = await Deno.makeTempFile({ suffix: ".db" });
 * using store = new SqliteStore(path);
 * await store.set(["pins", "global", "docs", "search"], { hash: "sha256-…" });
 * using again = new SqliteStore(path);
 * assertEquals(await again.get(["pins", "global", "docs", "search"]), { hash: "sha256-…" });
 * ```
 *
 * @tags allow-read, allow-write
 */
export class SqliteStore implements KeyValueStore, Disposable {
  #db: DatabaseSync;
  #now: () => number;
  #get: StatementSync;
  #set: StatementSync;
  #add: StatementSync;
  #delete: StatementSync;
  #list: StatementSync;
  #count: StatementSync;

  /**
   * Opens (or creates) the store file. Throws when the file cannot be opened or is not SQLite.
   *
   * @param path The file's path.
   * @param options The clock and the lock wait.
   */
  constructor(path: string, options: SqliteStoreOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#db = new DatabaseSync(path);
    this.#db.exec(
      `PRAGMA busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`,
    );
    this.#db.exec("PRAGMA journal_mode = WAL");
    this.#db.exec(
      "CREATE TABLE IF NOT EXISTS toolroute_kv (k TEXT PRIMARY KEY, v TEXT NOT NULL, e INTEGER)",
    );
    this.#get = this.#db.prepare("SELECT v FROM toolroute_kv WHERE k = ? AND (e IS NULL OR e > ?)");
    this.#set = this.#db.prepare(
      "INSERT INTO toolroute_kv (k, v, e) VALUES (?, ?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v, e = excluded.e",
    );
    this.#add = this.#db.prepare(
      "INSERT INTO toolroute_kv (k, v, e) VALUES (?, ?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v, e = excluded.e WHERE toolroute_kv.e IS NOT NULL AND toolroute_kv.e <= ?",
    );
    this.#delete = this.#db.prepare("DELETE FROM toolroute_kv WHERE k = ?");
    // One statement, so the read and the write happen under one write lock: two processes never
    // both see the same count.
    this.#count = this.#db.prepare(
      `INSERT INTO toolroute_kv (k, v, e) VALUES (?1, ?2, ?3) ON CONFLICT(k) DO UPDATE SET
         v = CASE WHEN toolroute_kv.e IS NOT NULL AND toolroute_kv.e <= ?4 THEN ?2
                  ELSE CAST(CAST(toolroute_kv.v AS INTEGER) + ?2 AS TEXT) END,
         e = CASE WHEN ?3 IS NOT NULL THEN ?3
                  WHEN toolroute_kv.e IS NOT NULL AND toolroute_kv.e <= ?4 THEN NULL
                  ELSE toolroute_kv.e END
       WHERE toolroute_kv.e IS NOT NULL AND toolroute_kv.e <= ?4
          OR CAST(CAST(toolroute_kv.v AS INTEGER) AS TEXT) = toolroute_kv.v
       RETURNING v`,
    );
    this.#list = this.#db.prepare(
      "SELECT k, v FROM toolroute_kv WHERE k >= ? AND k < ? AND (e IS NULL OR e > ?) ORDER BY k",
    );
  }

  get<T = unknown>(key: readonly string[]): Promise<T | undefined> {
    const row = this.#get.get(encodeKey(key), this.#now()) as { v: string } | undefined;
    return Promise.resolve(row === undefined ? undefined : JSON.parse(row.v) as T);
  }

  set(key: readonly string[], value: unknown, options: KeyValueSetOptions = {}): Promise<void> {
    const k = encodeKey(key);
    this.#set.run(k, encodeValue(value), this.#expiry(options));
    return Promise.resolve();
  }

  setIfAbsent(
    key: readonly string[],
    value: unknown,
    options: KeyValueSetOptions = {},
  ): Promise<boolean> {
    const k = encodeKey(key);
    const now = this.#now();
    const { changes } = this.#immediate(() =>
      this.#add.run(k, encodeValue(value), this.#expiry(options), now)
    );
    return Promise.resolve(Number(changes) === 1);
  }

  increment(key: readonly string[], options: KeyValueIncrementOptions = {}): Promise<number> {
    const by = incrementBy(options);
    const k = encodeKey(key);
    const row = this.#immediate(() =>
      this.#count.get(k, String(by), this.#expiry(options), this.#now())
    ) as { v: string } | undefined;
    if (row === undefined) {
      // The WHERE clause refused the update: the key holds something that is not an integer.
      return Promise.reject(notANumber(key));
    }
    return Promise.resolve(Number(row.v));
  }

  delete(key: readonly string[]): Promise<void> {
    this.#delete.run(encodeKey(key));
    return Promise.resolve();
  }

  list<T = unknown>(prefix: readonly string[]): Promise<KeyValueEntry<T>[]> {
    // Keys are JSON arrays: every key under `["a","b"]` starts with `["a","b",` then a quote.
    const start = prefix.length === 0 ? '["' : `${encodeKey(prefix).slice(0, -1)},"`;
    const end = start.slice(0, -1) + "#";
    const rows = this.#list.all(start, end, this.#now()) as { k: string; v: string }[];
    return Promise.resolve(
      rows.map((row) => ({ key: JSON.parse(row.k) as string[], value: JSON.parse(row.v) as T })),
    );
  }

  /** Closes the file. */
  close(): void {
    if (this.#db.isOpen) this.#db.close();
  }

  /** Same as {@linkcode SqliteStore#close}, for `using`. */
  [Symbol.dispose](): void {
    this.close();
  }

  /**
   * Runs a read-then-write statement in a transaction that takes the write lock first: a
   * statement that starts as a reader gets "database is locked" at once, without waiting, when
   * another process wrote in between (SQLite's WAL rule), while this waits up to the busy timeout.
   */
  #immediate<T>(statement: () => T): T {
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      const result = statement();
      this.#db.exec("COMMIT");
      return result;
    } catch (error) {
      if (this.#db.isTransaction) this.#db.exec("ROLLBACK");
      throw error;
    }
  }

  #expiry(options: KeyValueSetOptions): number | null {
    const expireIn = checkExpireIn(options.expireIn);
    return expireIn === undefined ? null : this.#now() + expireIn;
  }
}

function encodeKey(key: readonly string[]): string {
  return JSON.stringify(checkKey(key));
}

import {
  checkExpireIn,
  incrementBy,
  type KeyValueEntry,
  type KeyValueIncrementOptions,
  type KeyValueSetOptions,
  type KeyValueStore,
} from "./key_value_store.ts";

interface Slot {
  key: string[];
  json: string;
  /** The value when `increment` wrote it: a count is read back without parsing. */
  count?: number;
  expiresAt: number | undefined;
}

/**
 * Encoded keys of frozen key arrays (a limit's count key, reused call after call): a frozen
 * array cannot change, so its encoding is computed once.
 */
const FROZEN_KEYS = new WeakMap<readonly string[], string>();

/** Below this many entries no sweep of expired ones runs: a small store costs no scan. */
const MIN_SWEEP = 1024;

/**
 * A {@linkcode KeyValueStore} in this process's memory: the default. Values are copied in and out as JSON, so a
 * caller can never change what is stored by mutating an object it passed or got.
 *
 * @example Store, read and claim a single-use key
 * ```ts
 * import { assertEquals } from "@std/assert";
 * import { MemoryStore } from "@toolroute/toolroute/stores";
 *
 * const store = new MemoryStore();
 * await store.set(["pins", "alice", "docs"], { hash: "abc" });
 * assertEquals(await store.get(["pins", "alice", "docs"]), { hash: "abc" });
 * assertEquals(await store.setIfAbsent(["used", "approval-1"], true), true);
 * assertEquals(await store.setIfAbsent(["used", "approval-1"], true), false);
 * ```
 */
export class MemoryStore implements KeyValueStore {
  #slots = new Map<string, Slot>();
  /**
   * The size at which the next new entry first drops every expired one. An expired entry is
   * dropped when read, but most are never read again (a limit's count of a window gone by, a
   * used approval's id, a finished authorization's state): without sweeps they would pile up
   * for as long as the process runs. After a sweep the next is due at twice what is left, so
   * its scan is paid for by as many new entries and the store holds at most about twice its
   * live entries.
   */
  #sweepAt = MIN_SWEEP;
  #now: () => number;

  /** `now` is the clock used for `expireIn` (for tests); `Date.now` by default. */
  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  /**
   * How many entries it holds, expired ones not dropped yet included: at most about twice the
   * live ones, or 1024 (for monitoring and tests).
   */
  get size(): number {
    return this.#slots.size;
  }

  get<T = unknown>(key: readonly string[]): Promise<T | undefined> {
    const slot = this.#live(encodeKey(key));
    return Promise.resolve(slot === undefined ? undefined : JSON.parse(slot.json) as T);
  }

  set(key: readonly string[], value: unknown, options: KeyValueSetOptions = {}): Promise<void> {
    this.#put(encodeKey(key), this.#slot(key, value, options));
    return Promise.resolve();
  }

  setIfAbsent(
    key: readonly string[],
    value: unknown,
    options: KeyValueSetOptions = {},
  ): Promise<boolean> {
    const encoded = encodeKey(key);
    if (this.#live(encoded) !== undefined) return Promise.resolve(false);
    this.#put(encoded, this.#slot(key, value, options));
    return Promise.resolve(true);
  }

  increment(key: readonly string[], options: KeyValueIncrementOptions = {}): Promise<number> {
    const by = incrementBy(options);
    const encoded = encodeKey(key);
    const now = this.#now();
    let slot = this.#slots.get(encoded);
    if (slot?.expiresAt !== undefined && slot.expiresAt <= now) slot = undefined;
    const current = slot === undefined ? 0 : slot.count ?? JSON.parse(slot.json);
    if (typeof current !== "number") {
      return Promise.reject(
        new TypeError(`Cannot increment ${JSON.stringify(key)}: it holds something not a number`),
      );
    }
    const next = current + by;
    const expiresAt = options.expireIn !== undefined ? now + options.expireIn : slot?.expiresAt;
    if (slot === undefined) {
      this.#put(encoded, { key: [...key], json: String(next), count: next, expiresAt });
    } else {
      // A count changes in place: the hot path of a limit check allocates no new entry.
      slot.json = String(next);
      slot.count = next;
      slot.expiresAt = expiresAt;
    }
    return Promise.resolve(next);
  }

  delete(key: readonly string[]): Promise<void> {
    this.#slots.delete(encodeKey(key));
    return Promise.resolve();
  }

  list<T = unknown>(prefix: readonly string[]): Promise<KeyValueEntry<T>[]> {
    const entries: KeyValueEntry<T>[] = [];
    const encodedPrefix = prefix.length === 0 ? "" : encodeKey(prefix) + "\u0000";
    for (const [encoded] of [...this.#slots].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (!encoded.startsWith(encodedPrefix)) continue;
      const slot = this.#live(encoded);
      if (slot) entries.push({ key: [...slot.key], value: JSON.parse(slot.json) as T });
    }
    return Promise.resolve(entries);
  }

  #slot(key: readonly string[], value: unknown, options: KeyValueSetOptions): Slot {
    const json = JSON.stringify(value);
    if (json === undefined) {
      throw new TypeError("Cannot store a value that is not JSON: pass plain data");
    }
    const expireIn = checkExpireIn(options.expireIn);
    return {
      key: [...key],
      json,
      count: undefined,
      expiresAt: expireIn === undefined ? undefined : this.#now() + expireIn,
    };
  }

  /** Writes an entry; a new one past the sweep size first drops the expired ones. */
  #put(encoded: string, slot: Slot): void {
    if (this.#slots.size >= this.#sweepAt && !this.#slots.has(encoded)) {
      const now = this.#now();
      for (const [key, held] of this.#slots) {
        if (held.expiresAt !== undefined && held.expiresAt <= now) this.#slots.delete(key);
      }
      this.#sweepAt = Math.max(MIN_SWEEP, 2 * this.#slots.size);
    }
    this.#slots.set(encoded, slot);
  }

  #live(encoded: string): Slot | undefined {
    const slot = this.#slots.get(encoded);
    if (slot?.expiresAt !== undefined && slot.expiresAt <= this.#now()) {
      this.#slots.delete(encoded);
      return undefined;
    }
    return slot;
  }
}

function encodeKey(key: readonly string[]): string {
  if (!Object.isFrozen(key)) return encodeParts(key);
  let encoded = FROZEN_KEYS.get(key);
  if (encoded === undefined) FROZEN_KEYS.set(key, encoded = encodeParts(key));
  return encoded;
}

function encodeParts(key: readonly string[]): string {
  if (key.length === 0) throw new TypeError("Cannot use an empty key: pass at least one part");
  // Parts are joined by NUL; NUL and \u0001 inside a part are escaped, so no two keys meet.
  let encoded = "";
  for (let index = 0; index < key.length; index++) {
    const part = key[index];
    if (typeof part !== "string") {
      throw new TypeError(`Cannot use key part "${String(part)}": parts are strings`);
    }
    const escaped = part.includes("\u0000") || part.includes("\u0001")
      ? part.replaceAll("\u0001", "\u0001\u0001").replaceAll("\u0000", "\u0001\u0002")
      : part;
    encoded = index === 0 ? escaped : `${encoded}\u0000${escaped}`;
  }
  return encoded;
}

/**
 * The one small async key-value store through which toolroute keeps state that may outlive a process or be shared
 * by several instances: tool pins, used approval ids, OAuth tokens and client registrations.
 *
 * Keys are arrays of strings (like Deno KV's), so a prefix names a group (`["pins", userId, serverId]`). Values are
 * plain JSON data. An implementation must be safe for concurrent use from one process; one shared by several processes
 * must make {@linkcode KeyValueStore.setIfAbsent} and {@linkcode KeyValueStore.increment} atomic across them.
 */
export interface KeyValueStore {
  /** The value stored under `key`, or `undefined` when there is none or it has expired. */
  get<T = unknown>(key: readonly string[]): Promise<T | undefined>;
  /** Stores `value` under `key`, replacing what was there; `expireIn` (ms) drops it after that long. */
  set(key: readonly string[], value: unknown, options?: KeyValueSetOptions): Promise<void>;
  /**
   * Stores `value` only when `key` holds nothing (or only an expired value), atomically; returns whether it stored.
   * Single-use tokens (approval ids, OAuth `state`) rely on this.
   */
  setIfAbsent(
    key: readonly string[],
    value: unknown,
    options?: KeyValueSetOptions,
  ): Promise<boolean>;
  /**
   * Adds `by` (default 1) to the number under `key` (0 when it holds nothing or only an expired
   * value), atomically, and returns the new number; `expireIn` (ms) drops the entry that long
   * after this write, and without it the entry keeps the expiry it had. Rate limits rely on this:
   * two increments never both see the same number. Throws a `TypeError` when the key holds
   * something that is not a number.
   */
  increment(key: readonly string[], options?: KeyValueIncrementOptions): Promise<number>;
  /** Removes `key`; removing a key that holds nothing is not an error. */
  delete(key: readonly string[]): Promise<void>;
  /** Every entry whose key starts with `prefix`, in key order. */
  list<T = unknown>(prefix: readonly string[]): Promise<KeyValueEntry<T>[]>;
}

/** Options of {@linkcode KeyValueStore.set} and {@linkcode KeyValueStore.setIfAbsent}. */
export interface KeyValueSetOptions {
  /** Milliseconds after which the value counts as absent. */
  expireIn?: number;
}

/** Options of {@linkcode KeyValueStore.increment}. */
export interface KeyValueIncrementOptions {
  /** What to add: a safe integer, negative to take back. Default: 1. */
  by?: number;
  /** Milliseconds after this write at which the entry counts as absent. */
  expireIn?: number;
}

/**
 * Checks the options of {@linkcode KeyValueStore.increment} the same way in every store.
 */
export function incrementBy(options: KeyValueIncrementOptions = {}): number {
  const by = options.by ?? 1;
  if (!Number.isSafeInteger(by)) {
    throw new RangeError(`Cannot increment by ${by}: pass a safe integer`);
  }
  checkExpireIn(options.expireIn);
  return by;
}

/**
 * Checks an `expireIn` the same way in every store: absent, or a positive number of milliseconds
 * (else a `RangeError`).
 *
 * @returns The `expireIn`.
 */
export function checkExpireIn(expireIn: number | undefined): number | undefined {
  if (expireIn !== undefined && !(Number.isFinite(expireIn) && expireIn > 0)) {
    throw new RangeError(
      `Cannot store with expireIn ${expireIn}: pass a positive number of milliseconds`,
    );
  }
  return expireIn;
}

/** One entry listed by {@linkcode KeyValueStore.list}. */
export interface KeyValueEntry<T = unknown> {
  /** The whole key. */
  key: string[];
  /** The stored value. */
  value: T;
}

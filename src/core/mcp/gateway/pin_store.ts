import type { KeyValueEntry, KeyValueStore } from "../../store/key_value_store.ts";

/**
 * Where tool pins are kept: the part of a `KeyValueStore` pinning uses, so any key-value store
 * (`MemoryStore`, the `./deno` entry's `SqliteStore` or `DenoKvStore`) is a pin store. A store
 * shared by several gateways makes a definition pinned by one withheld by all after drift.
 *
 * Pins live under `["pins", "global", serverId, toolName]` (a global server, server-wide),
 * `["pins", "global-user", userId, serverId, toolName]` (one user's acceptance on a global server)
 * and `["pins", "user", userId, serverId, toolName]` (a user's own server).
 */
export interface PinStore {
  /** The value under `key`, or `undefined`. */
  get<T = unknown>(key: readonly string[]): Promise<T | undefined>;
  /** Stores `value` under `key`, replacing what was there. */
  set(key: readonly string[], value: unknown): Promise<void>;
  /** Stores `value` only when `key` holds nothing, atomically; returns whether it stored. */
  setIfAbsent(key: readonly string[], value: unknown): Promise<boolean>;
  /** Every entry under `prefix`, in key order. */
  list<T = unknown>(prefix: readonly string[]): Promise<KeyValueEntry<T>[]>;
}

/** One pinned tool definition, as stored. */
export interface ToolPin {
  /** The hash of the whole definition (`sha256-…`). */
  hash: string;
  /** The hash of each pinned field, so drift can say which fields changed. */
  fields?: Record<string, string>;
  /** When it was pinned (ISO 8601). */
  pinnedAt?: string;
  /** The pinned fields as they were (what a reviewer approved). */
  definition?: Record<string, unknown>;
}

/** The pinning option of `McpGateway` in its object form. */
export interface PinningOptions {
  /** Where pins are kept. Default: this gateway's memory (a map of shared definition hashes). */
  store?: PinStore;
  /**
   * Whether a tool seen for the first time is pinned (trust on first use) or withheld until it is
   * accepted (a lock file). Default: `true`.
   */
  trustOnFirstUse?: boolean;
  /** What a withheld tool's reason tells the reader to do. Default: call `acceptToolChanges`. */
  reviewHint?: string;
}

/** Throws a `TypeError` naming each of `methods` that the store of the option `name` lacks. */
export function checkStore(
  store: unknown,
  { name, methods }: { name: string; methods: readonly (keyof KeyValueStore)[] },
): void {
  const lacking = methods.filter((method) =>
    typeof (store as Record<string, unknown> | undefined)?.[method] !== "function"
  );
  if (lacking.length === 0) return;
  throw new TypeError(
    `Cannot create McpGateway: "${name}" lacks ${
      lacking.join(", ")
    }; pass a KeyValueStore such as MemoryStore`,
  );
}

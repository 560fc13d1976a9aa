import type { KeyValueStore } from "../../../store/key_value_store.ts";
import type { McpGatewayEvent } from "../mcp_gateway_types.ts";
import { pairIndex } from "../connection/pair_index.ts";
import type { ServerToolNames } from "./remote_tool_names.ts";

/** Where the last known tool lists are kept past the process (`McpGatewayOptions.toolNames`). */
export type ToolNamesStore = Pick<KeyValueStore, "get" | "set">;

/** Options of {@linkcode KnownToolNames}. */
export interface KnownToolNamesOptions {
  /** Keeps each server's last known list, so a restart names tools as the last run did. */
  store?: ToolNamesStore;
  /** Most characters (as JSON) of one kept list; a longer one is ignored. Default: 262144. */
  maxChars?: number;
  /** Receives `names_ignored` (a kept list not used) and `names_unsaved` (a list not kept). */
  emit?: (event: McpGatewayEvent) => void;
}

/**
 * The last known tool names of every server of each tier (the global servers, each user's own),
 * kept while a server is down, so exposed names depend on the configuration and these lists,
 * never on which servers answer right now. With a store, the lists outlive the process: a server
 * down at start takes part in naming with the list the last run saw.
 *
 * A kept list only ever stands in for a server that has not answered in this process: a server's
 * own current list always replaces it, so a kept list can reserve names for a server that is
 * down, never lead a name to another server's tool.
 *
 * Tiers are `"global"` and `"user\u0000" + userId`; they are kept under
 * `["tool-names", "global", serverId]` and `["tool-names", "user", userId, serverId]` (a user's
 * session of a global server: see `storeKey`).
 */
export class KnownToolNames {
  /**
   * Per tier, each server's last known names as `[id, names, id, names, ...]`; a server whose
   * kept list was read (or is being read) without names yet holds `UNKNOWN`, so one list per tier
   * says both. A flat list, not a map: most tiers (a user's) hold one or two servers, and a
   * pooled user holds little else.
   */
  #tiers = new Map<string, TierLists>();
  #version = 0;
  #store?: ToolNamesStore;
  #maxChars: number;
  #emit: (event: McpGatewayEvent) => void;
  /** The writes in flight, in order (a later list of a server is never overwritten by an earlier). */
  #writes: Promise<void> = Promise.resolve();
  /**
   * The kept lists being read, by tier and server: a second restore of the same server waits for
   * the first one's read (else it would name with the list still unknown: at a start, serve's own
   * first resolve and a client's first `tools/list` overlap).
   */
  #reading = new Map<string, Promise<void>>();

  /**
   * @param options The store the lists are kept in, the bound of a kept list, the events.
   */
  constructor(options: KnownToolNamesOptions = {}) {
    this.#store = options.store;
    this.#maxChars = options.maxChars ?? 262_144;
    this.#emit = options.emit ?? (() => {});
  }

  /** Increases whenever a list changes. */
  get version(): number {
    return this.#version;
  }

  /**
   * Records a server's current tool names (and keeps them in the store when they changed).
   *
   * @param tier `"global"` or the user's tier key.
   */
  update(tier: string, serverId: string, names: readonly string[]): void {
    // Listed now: a kept list read later must not replace this one.
    if (!this.#set(tier, serverId, names)) return;
    const store = this.#store;
    if (store === undefined) return;
    const list = [...names];
    this.#writes = this.#writes.then(() => store.set(storeKey(tier, serverId), list)).catch(
      (error: unknown) =>
        this.#emit({
          ...who(tier, serverId),
          type: "names_unsaved",
          message: `its tool list was not kept for the next start: ${
            error instanceof Error ? error.message : String(error)
          }`,
        }),
    );
  }

  /**
   * Reads the kept lists of the given servers that have not answered in this process yet (once
   * per server). A kept list that is not an array of strings within the bound is ignored with a
   * `names_ignored` event; a store that fails is reported the same way, never thrown.
   *
   * @param serverIds The tier's configured server ids.
   */
  async restore(tier: string, serverIds: Iterable<string>): Promise<void> {
    const store = this.#store;
    if (store === undefined) return;
    const reads: Promise<void>[] = [];
    for (const serverId of serverIds) {
      const key = `${tier}\u0000${serverId}`;
      if (!this.#put(tier, serverId, UNKNOWN)) {
        const reading = this.#reading.get(key);
        if (reading !== undefined) reads.push(reading);
        continue;
      }
      const read = (async () => {
        let value: unknown;
        try {
          value = await store.get(storeKey(tier, serverId));
        } catch (error) {
          this.#ignored(tier, serverId, `the store failed: ${(error as Error)?.message}`);
          return;
        }
        if (value === undefined) return;
        const names = this.#checked(value);
        if (typeof names === "string") return this.#ignored(tier, serverId, names);
        // A server that answered meanwhile keeps its own list.
        const now = namesIn(this.#tiers.get(tier), serverId);
        if (now !== undefined && now !== UNKNOWN) return;
        this.#set(tier, serverId, names);
      })();
      this.#reading.set(key, read);
      reads.push(read.finally(() => this.#reading.delete(key)));
    }
    await Promise.all(reads);
  }

  /** Resolves when every list recorded so far is kept (or reported as not kept). */
  settled(): Promise<void> {
    return this.#writes;
  }

  /**
   * Forgets one server's list, or a whole tier's, when servers are removed from the configuration.
   * (A kept list stays in the store: it is read again for a server configured again.)
   *
   * @param serverId The server id; every server of the tier when absent.
   */
  forget(tier: string, serverId?: string): void {
    const lists = this.#tiers.get(tier);
    if (lists === undefined) return;
    if (serverId === undefined) this.#tiers.delete(tier);
    else {
      const i = pairIndex(lists, serverId);
      if (i < 0) return;
      lists.splice(i, 2);
      if (lists.length === 0) this.#tiers.delete(tier);
    }
    this.#version++;
  }

  /**
   * The known lists of the given servers, in the given (configuration) order; a server never
   * listed comes with no tools: it names none, but its qualified prefix stays its own, so a
   * server that answers first cannot hand out a `SERVER_tool` name that moves to that server's
   * tool when it arrives.
   *
   * @param serverIds The tier's configured server ids.
   * @returns The servers with their last known tool names.
   */
  lists(tier: string, serverIds: Iterable<string>): ServerToolNames[] {
    const lists = this.#tiers.get(tier);
    const out: ServerToolNames[] = [];
    for (const serverId of serverIds) {
      out.push({ serverId, toolNames: namesIn(lists, serverId) ?? [] });
    }
    return out;
  }

  /** Adds a server's names to a tier unless it is there; returns whether it was added. */
  #put(tier: string, serverId: string, names: readonly string[]): boolean {
    const lists = this.#tiers.get(tier);
    // A literal is laid out for its two items; a push would make room for many more.
    if (lists === undefined) this.#tiers.set(tier, [serverId, names]);
    else if (pairIndex(lists, serverId) >= 0) return false;
    else lists.push(serverId, names);
    return true;
  }

  /**
   * Sets a list in memory; returns whether it changed. A frozen list is kept as it is (see
   * `toolNamesOf`: the users of one server share it), any other is copied.
   */
  #set(tier: string, serverId: string, names: readonly string[]): boolean {
    const lists = this.#tiers.get(tier);
    const i = pairIndex(lists, serverId);
    const old = i < 0 ? undefined : lists![i + 1] as readonly string[];
    // `UNKNOWN` is empty but is no list: a server that answers with no tools while its kept list
    // is read replaces it, else the read would then put the stale kept list in its place.
    if (
      old !== undefined && old !== UNKNOWN && old.length === names.length &&
      old.every((n, j) => n === names[j])
    ) {
      return false;
    }
    const kept = Object.isFrozen(names) ? names : Object.freeze([...names]);
    if (i < 0) this.#put(tier, serverId, kept);
    else lists![i + 1] = kept;
    this.#version++;
    return true;
  }

  /** The kept value as a list, or why it cannot be one. */
  #checked(value: unknown): string[] | string {
    if (!Array.isArray(value) || !value.every((name) => typeof name === "string")) {
      return "the kept tool list is not an array of strings";
    }
    const chars = JSON.stringify(value).length;
    if (chars > this.#maxChars) {
      return `the kept tool list has ${chars} characters, more than ${this.#maxChars}`;
    }
    return value;
  }

  #ignored(tier: string, serverId: string, why: string): void {
    this.#emit({
      ...who(tier, serverId),
      type: "names_ignored",
      message: `its kept tool list was not used (${why}); names follow the servers that answer`,
    });
  }
}

/** A tier's servers and their names: `[id, names, id, names, ...]`. */
type TierLists = (string | readonly string[])[];

/** A server whose names are not known yet (its kept list is read, or was read empty). */
const UNKNOWN: readonly string[] = Object.freeze([]);

/** One frozen list of names per tool list object (the users of a server share their list). */
const namesOfList = new WeakMap<readonly { name: string }[], readonly string[]>();

/**
 * The names of a tool list, frozen and made once per list object: tool lists are shared by
 * content between a gateway's connections, so a thousand users of one server keep one list of
 * names, not one each.
 *
 * @returns Its tools' names.
 */
export function toolNamesOf(tools: readonly { name: string }[]): readonly string[] {
  let names = namesOfList.get(tools);
  if (names === undefined) namesOfList.set(tools, names = Object.freeze(tools.map((t) => t.name)));
  return names;
}

/** A server's names in a tier's lists, if any. */
function namesIn(lists: TierLists | undefined, serverId: string): readonly string[] | undefined {
  const i = pairIndex(lists, serverId);
  return i < 0 ? undefined : lists![i + 1] as readonly string[];
}

/**
 * The store key of a server's kept list. A user's session of a global server (tier
 * `user-global\u0000…`) is kept beside the user's own servers under its id prefixed as the pool
 * keys such a session (`\u0000global:`, which no user server id may start with): under the bare id
 * it would share the key of a user's own server of the same id, and each would name, after a
 * restart, with the other's list.
 */
function storeKey(tier: string, serverId: string): string[] {
  if (tier === "global") return ["tool-names", "global", serverId];
  const userId = tier.slice(tier.indexOf("\u0000") + 1);
  const id = tier.startsWith("user-global\u0000") ? `\u0000global:${serverId}` : serverId;
  return ["tool-names", "user", userId, id];
}

/** The event fields naming a server of a tier. */
function who(tier: string, serverId: string): { serverId: string; userId?: string } {
  return tier === "global"
    ? { serverId }
    : { serverId, userId: tier.slice(tier.indexOf("\u0000") + 1) };
}

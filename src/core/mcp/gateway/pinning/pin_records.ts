import type { McpTool } from "../../mcp_sdk.ts";
import type { PinStore, ToolPin } from "../pin_store.ts";
import { isUserOfGlobal, pinKey, type PinScope, scopeKey, serverWide } from "./pin_scope.ts";
import { PINNED_FIELDS, type ToolDefinitionHash } from "./tool_definition_hash.ts";

/** A pin as it is compared: the whole hash and, when recorded, each field's. */
export type Pinned = Pick<ToolPin, "hash" | "fields">;

/**
 * Reads and writes pins, in a `PinStore` or, without one (the default), in a map of this process
 * whose entries refer to the one shared hash of each distinct definition: a thousand users of a
 * server cost a map entry per tool each, not a stored copy of every definition, and a check needs
 * no asynchronous step. Nothing outside the gateway can read the default store, so the map is
 * indistinguishable from a `MemoryStore`, only cheaper.
 */
export class PinRecords {
  #store?: PinStore;
  #memory = new Map<string, Pinned>();

  constructor(store?: PinStore) {
    this.#store = store;
  }

  /**
   * The pin a tool's definition is checked against: for one user of a global server, the user's
   * own acceptance, else the server-wide pin. When there is none and `pinNew` is set, the
   * definition is pinned now (atomically, so of two racing instances one pin wins) and returned.
   *
   * @param scope The server (and user).
   * @param hashed Its hash.
   * @param pinNew Whether an unpinned tool is pinned now (trust on first use).
   * @returns The pin, or `undefined` when the tool is not pinned (synchronously without a store).
   */
  lookup(
    scope: PinScope,
    tool: McpTool,
    hashed: ToolDefinitionHash,
    pinNew: boolean,
  ): Pinned | undefined | Promise<Pinned | undefined> {
    if (this.#store !== undefined) return this.#fromStore(this.#store, scope, tool, hashed, pinNew);
    const memory = this.#memory;
    let base = scope;
    if (isUserOfGlobal(scope)) {
      const own = memory.get(memoryKey(scope, tool.name));
      if (own !== undefined) return own;
      base = serverWide(scope);
    }
    const key = memoryKey(base, tool.name);
    let pin = memory.get(key);
    if (pin === undefined && pinNew) memory.set(key, pin = hashed);
    return pin;
  }

  /**
   * Pins a definition at a scope, replacing its pin.
   *
   * @param scope The server (and user).
   * @param hashed Its hash.
   */
  async put(scope: PinScope, tool: McpTool, hashed: ToolDefinitionHash): Promise<void> {
    if (this.#store === undefined) this.#memory.set(memoryKey(scope, tool.name), hashed);
    else await this.#store.set(pinKey(scope, tool.name), pinOf(tool, hashed));
  }

  async #fromStore(
    store: PinStore,
    scope: PinScope,
    tool: McpTool,
    hashed: ToolDefinitionHash,
    pinNew: boolean,
  ): Promise<Pinned | undefined> {
    let key = pinKey(scope, tool.name);
    let pin: Pinned | undefined;
    if (isUserOfGlobal(scope)) {
      key = pinKey(serverWide(scope), tool.name);
      const [own, base] = await Promise.all([
        store.get<ToolPin>(pinKey(scope, tool.name)),
        store.get<ToolPin>(key),
      ]);
      if (own !== undefined) return own;
      pin = base;
    } else pin = await store.get<ToolPin>(key);
    if (pin !== undefined || !pinNew) return pin;
    if (await store.setIfAbsent(key, pinOf(tool, hashed))) return hashed;
    return await store.get<ToolPin>(key);
  }
}

function memoryKey(scope: PinScope, toolName: string): string {
  return `${scopeKey(scope)}\u0000${toolName}`;
}

/** A pin as a store keeps it: with the definition as approved, for review and the lock file. */
function pinOf(tool: McpTool, hashed: ToolDefinitionHash): ToolPin {
  const definition: Record<string, unknown> = {};
  for (const field of PINNED_FIELDS) {
    if (tool[field] !== undefined) definition[field] = tool[field];
  }
  return {
    hash: hashed.hash,
    fields: hashed.fields,
    pinnedAt: new Date().toISOString(),
    definition,
  };
}

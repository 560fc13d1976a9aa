import type { ServerToolNames } from "./remote_tool_names.ts";

/**
 * The last known tool names of every server of each tier (the global servers, each user's own),
 * kept while a server is down, so exposed names depend on the configuration and these lists,
 * never on which servers answer right now.
 */
export class KnownToolNames {
  #tiers = new Map<string, Map<string, readonly string[]>>();
  #version = 0;

  /** Increases whenever a list changes. */
  get version(): number {
    return this.#version;
  }

  /**
   * Records a server's current tool names.
   *
   * @param tier `"global"` or the user's tier key.
   * @param serverId The server id.
   * @param names The tool names it lists now.
   */
  update(tier: string, serverId: string, names: readonly string[]): void {
    let lists = this.#tiers.get(tier);
    if (lists === undefined) this.#tiers.set(tier, lists = new Map());
    const old = lists.get(serverId);
    if (old !== undefined && old.length === names.length && old.every((n, i) => n === names[i])) {
      return;
    }
    lists.set(serverId, Object.freeze([...names]));
    this.#version++;
  }

  /**
   * Forgets one server's list, or a whole tier's, when servers are removed from the configuration.
   *
   * @param tier The tier key.
   * @param serverId The server id; every server of the tier when absent.
   */
  forget(tier: string, serverId?: string): void {
    const lists = this.#tiers.get(tier);
    if (lists === undefined) return;
    if (serverId === undefined) this.#tiers.delete(tier);
    else if (!lists.delete(serverId)) return;
    this.#version++;
  }

  /**
   * The known lists of the given servers, in the given (configuration) order; servers never
   * listed are left out.
   *
   * @param tier The tier key.
   * @param serverIds The tier's configured server ids.
   * @returns The servers with their last known tool names.
   */
  lists(tier: string, serverIds: Iterable<string>): ServerToolNames[] {
    const lists = this.#tiers.get(tier);
    const out: ServerToolNames[] = [];
    for (const serverId of serverIds) {
      const toolNames = lists?.get(serverId);
      if (toolNames !== undefined) out.push({ serverId, toolNames });
    }
    return out;
  }
}

import type { McpTool } from "../../mcp_sdk.ts";

/**
 * One object per distinct tool definition for every connection of a gateway: a thousand users of
 * one server hold references to the same frozen definitions instead of a thousand parsed copies of
 * each description and schema. Definitions are told apart by their whole JSON text, so a server
 * that gives one user a different definition gives that user a different object.
 *
 * The lists are shared too: users who got the same definitions in the same order hold one frozen
 * array (and so one index of it, see `ToolListCache#index`).
 *
 * Shared definitions are deep-frozen: nothing can change one user's copy under another. An entry
 * lives as long as some connection holds it (a `WeakRef`); dead entries are swept as new ones come.
 */
export class SharedToolDefinitions {
  #byJson = new Map<string, { deref(): McpTool | undefined }>();
  /** A number per shared definition, to key the lists made of them. */
  #ids = new WeakMap<McpTool, number>();
  #nextId = 0;
  /** The shared lists, by the numbers of their definitions in order. */
  #lists = new Map<string, { deref(): readonly McpTool[] | undefined }>();
  #addedSinceSweep = 0;
  #hold: (tool: McpTool) => { deref(): McpTool | undefined };

  /**
   * Creates an empty registry.
   *
   * @param options `hold` makes the weak reference to a definition (a seam for tests; default
   *   `new WeakRef(tool)`).
   */
  constructor(options: { hold?: (tool: McpTool) => { deref(): McpTool | undefined } } = {}) {
    this.#hold = options.hold ?? ((tool) => new WeakRef(tool));
  }

  /** How many definitions are known (live or not yet swept), for tests. */
  get size(): number {
    return this.#byJson.size;
  }

  /**
   * The shared, frozen objects of a tool list, in its order, in a shared frozen list.
   *
   * @param tools The tools as a server listed them.
   * @returns The same definitions, shared and frozen.
   */
  share(tools: readonly McpTool[]): readonly McpTool[] {
    if (typeof WeakRef !== "function") return [...tools]; // no weak references: nothing shared
    const shared = tools.map((tool) => this.#one(tool));
    const key = shared.map((tool) => this.#ids.get(tool)).join(",");
    const known = this.#lists.get(key)?.deref();
    if (known !== undefined) return known;
    const list = Object.freeze(shared);
    this.#lists.set(key, new WeakRef(list));
    return list;
  }

  #one(tool: McpTool): McpTool {
    const json = JSON.stringify(tool);
    const known = this.#byJson.get(json)?.deref();
    if (known !== undefined) return known;
    const frozen = deepFreeze(JSON.parse(json) as McpTool);
    this.#ids.set(frozen, this.#nextId++);
    this.#byJson.set(json, this.#hold(frozen));
    if (++this.#addedSinceSweep >= Math.max(256, this.#byJson.size)) this.#sweep();
    return frozen;
  }

  #sweep(): void {
    this.#addedSinceSweep = 0;
    for (const [json, ref] of this.#byJson) {
      if (ref.deref() === undefined) this.#byJson.delete(json);
    }
    for (const [key, ref] of this.#lists) {
      if (ref.deref() === undefined) this.#lists.delete(key);
    }
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

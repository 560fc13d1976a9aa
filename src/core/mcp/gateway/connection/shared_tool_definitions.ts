import type { McpTool } from "../../mcp_sdk.ts";

/**
 * One object per distinct tool definition for every connection of a gateway: a thousand users of
 * one server hold references to the same frozen definitions instead of a thousand parsed copies of
 * each description and schema. Definitions are told apart by their whole JSON text, so a server
 * that gives one user a different definition gives that user a different object.
 *
 * Shared definitions are deep-frozen: nothing can change one user's copy under another. An entry
 * lives as long as some connection holds it (a `WeakRef`); dead entries are swept as new ones come.
 */
export class SharedToolDefinitions {
  #byJson = new Map<string, { deref(): McpTool | undefined }>();
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
   * The shared, frozen objects of a tool list, in its order.
   *
   * @param tools The tools as a server listed them.
   * @returns The same definitions, shared and frozen.
   */
  share(tools: readonly McpTool[]): McpTool[] {
    if (typeof WeakRef !== "function") return [...tools]; // no weak references: nothing shared
    return tools.map((tool) => this.#one(tool));
  }

  #one(tool: McpTool): McpTool {
    const json = JSON.stringify(tool);
    const known = this.#byJson.get(json)?.deref();
    if (known !== undefined) return known;
    const frozen = deepFreeze(JSON.parse(json) as McpTool);
    this.#byJson.set(json, this.#hold(frozen));
    if (++this.#addedSinceSweep >= Math.max(256, this.#byJson.size)) this.#sweep();
    return frozen;
  }

  #sweep(): void {
    this.#addedSinceSweep = 0;
    for (const [json, ref] of this.#byJson) {
      if (ref.deref() === undefined) this.#byJson.delete(json);
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

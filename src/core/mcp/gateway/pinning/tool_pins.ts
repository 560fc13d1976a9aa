import { MemoryStore } from "../../../store/memory_store.ts";
import type { MissingTool } from "../../../tool_source.ts";
import type { McpTool } from "../../mcp_sdk.ts";
import type { McpGatewayEvent } from "../mcp_gateway_types.ts";
import type { PinningOptions, PinStore, ToolPin } from "./pin_store.ts";
import { hashToolDefinition, PINNED_FIELDS } from "./tool_definition_hash.ts";

/** Whose pins: a global server's (shared by every user) or one user's own server's. */
export interface PinScope {
  /** The server id. */
  serverId: string;
  /** The user, for a per-user server. */
  userId?: string;
}

/** The tools of one server that may be exposed, and those withheld. */
export interface PinnedTools {
  /** The tools whose definitions match their pins (new ones pinned now). */
  tools: readonly McpTool[];
  /** The withheld tools, as `missing` entries. */
  missing: MissingTool[];
}

/**
 * Trust on first use, fail closed: the first definition seen of each (user, server, tool) is
 * pinned by hash; a later definition that differs is withheld until it is accepted.
 */
export class ToolPins {
  #store: PinStore;
  #tofu: boolean;
  #hint?: string;
  #emit: (event: McpGatewayEvent) => void;
  /** Withheld tools per scope (reason by tool name), for `status()`. */
  #withheld = new Map<string, Map<string, string>>();
  /** Drifts already reported, so a withheld tool is reported once per definition. */
  #reported = new Set<string>();
  /**
   * Tool lists found to match their pins, by list object and scope. A connection replaces its
   * list object whenever the server's list changes, so drift always meets a fresh check; a
   * list with withheld tools is never cached, so an acceptance elsewhere is seen at once.
   */
  #verified = new WeakMap<readonly McpTool[], Set<string>>();

  /**
   * Creates the pin keeper.
   *
   * @param options The store, first-use policy and review hint.
   * @param emit Receives `tool_withheld` and `tools_accepted` events.
   */
  constructor(options: PinningOptions, emit: (event: McpGatewayEvent) => void) {
    if (options === null || typeof options !== "object") {
      throw new TypeError(
        `Cannot create McpGateway: "pinning" must be a boolean or { store? }, received ${
          JSON.stringify(options)
        }`,
      );
    }
    const store = options.store;
    if (store !== undefined) {
      const lacking = (["get", "set", "setIfAbsent", "list"] as const).filter((method) =>
        typeof store?.[method] !== "function"
      );
      if (lacking.length > 0) {
        throw new TypeError(
          `Cannot create McpGateway: "pinning.store" lacks ${
            lacking.join(", ")
          }; pass a KeyValueStore such as MemoryStore`,
        );
      }
    }
    this.#store = store ?? new MemoryStore();
    this.#tofu = options.trustOnFirstUse ?? true;
    this.#hint = options.reviewHint;
    this.#emit = emit;
  }

  /**
   * Checks a server's current tools against their pins, pinning tools seen for the first time.
   *
   * @param scope The server (and user).
   * @param tools The server's current tool list.
   * @returns The tools to expose and the withheld ones.
   */
  async check(scope: PinScope, tools: readonly McpTool[]): Promise<PinnedTools> {
    const key = scopeKey(scope);
    if (this.#verified.get(tools)?.has(key)) return { tools, missing: [] };
    const verdicts = await Promise.all(tools.map((tool) => this.#verdict(scope, tool)));
    const withheld = new Map<string, string>();
    const missing: MissingTool[] = [];
    const kept: McpTool[] = [];
    verdicts.forEach((reason, i) => {
      if (reason === undefined) return void kept.push(tools[i]);
      withheld.set(tools[i].name, reason);
      missing.push({ selection: "mcpServers", name: `${scope.serverId}/${tools[i].name}`, reason });
    });
    if (withheld.size === 0) {
      this.#withheld.delete(key);
      const scopes = this.#verified.get(tools) ?? new Set<string>();
      this.#verified.set(tools, scopes.add(key));
    } else this.#withheld.set(key, withheld);
    return { tools: withheld.size === 0 ? tools : kept, missing };
  }

  /**
   * Checks, just before a call, that the tool's current definition still matches its pin: a tool
   * exposed earlier whose definition changed since is refused, not called. Cheap for a list
   * already verified.
   *
   * @param scope The server (and user).
   * @param toolName The tool's name on the server.
   * @param tools The server's current tool list.
   * @returns Why the call is refused, or `undefined` when it may go ahead.
   */
  async refusal(
    scope: PinScope,
    toolName: string,
    tools: readonly McpTool[],
  ): Promise<string | undefined> {
    let checked: PinnedTools;
    try {
      checked = await this.check(scope, tools);
    } catch (error) {
      return `the tool pins of MCP server "${scope.serverId}" cannot be checked (${
        error instanceof Error ? error.message : String(error)
      })`;
    }
    return checked.missing.find((entry) => entry.name === `${scope.serverId}/${toolName}`)?.reason;
  }

  /**
   * Pins a server's current definitions, replacing their pins (pins of tools no longer listed
   * stay, so a tool that comes back changed is still withheld).
   *
   * @param scope The server (and user).
   * @param tools The server's current tool list.
   * @returns The names of the tools whose pins changed.
   */
  async accept(scope: PinScope, tools: readonly McpTool[]): Promise<string[]> {
    const changed: string[] = [];
    for (const tool of tools) {
      const { hash, fields } = await hashToolDefinition(tool);
      const key = pinKey(scope, tool.name);
      const old = await this.#store.get<ToolPin>(key);
      if (old?.hash === hash) continue;
      await this.#store.set(key, pinOf(tool, hash, fields));
      changed.push(tool.name);
    }
    this.#withheld.delete(scopeKey(scope));
    this.#verified = new WeakMap();
    this.#emit({ ...who(scope), type: "tools_accepted", tools: changed.length });
    return changed;
  }

  /**
   * The tools withheld at a scope's last check.
   *
   * @param scope The server (and user).
   * @returns Tool names, sorted; empty when none.
   */
  withheld(scope: PinScope): string[] {
    return [...(this.#withheld.get(scopeKey(scope))?.keys() ?? [])].sort();
  }

  async #verdict(scope: PinScope, tool: McpTool): Promise<string | undefined> {
    const { hash, fields } = await hashToolDefinition(tool);
    const key = pinKey(scope, tool.name);
    let pin = await this.#store.get<ToolPin>(key);
    if (pin === undefined && this.#tofu) {
      if (await this.#store.setIfAbsent(key, pinOf(tool, hash, fields))) return undefined;
      pin = await this.#store.get<ToolPin>(key);
    }
    if (pin?.hash === hash) return undefined;
    const reason = pin === undefined
      ? `the definition of tool "${tool.name}" is not pinned and is withheld until reviewed; ${
        this.#next(scope)
      }`
      : `the definition of tool "${tool.name}" changed since it was pinned (${
        changedFields(pin, fields)
      }) and is withheld; ${this.#next(scope)}`;
    const reported = `${scopeKey(scope)}\u0000${tool.name}\u0000${hash}`;
    if (!this.#reported.has(reported)) {
      this.#reported.add(reported);
      if (this.#reported.size > 10_000) this.#reported.clear();
      this.#emit({ ...who(scope), type: "tool_withheld", tool: tool.name, message: reason });
    }
    return reason;
  }

  #next(scope: PinScope): string {
    if (this.#hint !== undefined) return this.#hint;
    const user = scope.userId === undefined ? "" : `, { userId: ${JSON.stringify(scope.userId)} }`;
    return `review it, then call gateway.acceptToolChanges(${
      JSON.stringify(scope.serverId)
    }${user})`;
  }
}

function pinOf(tool: McpTool, hash: string, fields: Record<string, string>): ToolPin {
  const definition: Record<string, unknown> = {};
  for (const field of PINNED_FIELDS) {
    if (tool[field] !== undefined) definition[field] = tool[field];
  }
  return { hash, fields, pinnedAt: new Date().toISOString(), definition };
}

function changedFields(pin: ToolPin, fields: Record<string, string>): string {
  if (pin.fields === undefined) return "fields not recorded";
  const changed = PINNED_FIELDS.filter((field) => pin.fields?.[field] !== fields[field]);
  return changed.length === 0 ? "hash differs" : `changed: ${changed.join(", ")}`;
}

/**
 * The store key of a tool's pin.
 *
 * @param scope The server (and user).
 * @param toolName The tool's name on the server.
 * @returns The key.
 */
export function pinKey(scope: PinScope, toolName: string): string[] {
  return scope.userId === undefined
    ? ["pins", "global", scope.serverId, toolName]
    : ["pins", "user", scope.userId, scope.serverId, toolName];
}

function scopeKey(scope: PinScope): string {
  return `${scope.userId ?? ""}\u0000${scope.serverId}`;
}

function who(scope: PinScope): { serverId: string; userId?: string } {
  return scope.userId === undefined
    ? { serverId: scope.serverId }
    : { serverId: scope.serverId, userId: scope.userId };
}

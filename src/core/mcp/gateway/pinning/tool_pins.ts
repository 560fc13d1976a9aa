import type { MissingTool } from "../../../tool_source.ts";
import { errorMessage } from "../../../tool_error.ts";
import type { McpTool } from "../../mcp_sdk.ts";
import type { McpGatewayEvent } from "../mcp_gateway_types.ts";
import { checkStore, type PinningOptions } from "../pin_store.ts";
import { type Pinned, PinRecords } from "./pin_records.ts";
import { isOwnServer, isUserOfGlobal, type PinScope, scopeKey } from "./pin_scope.ts";
import { serverOf } from "../connection/open_mcp_client.ts";
import {
  hashToolDefinition,
  knownToolDefinitionHash,
  PINNED_FIELDS,
  type ToolDefinitionHash,
} from "./tool_definition_hash.ts";

/** The tools of one server that may be exposed, and those withheld. */
export interface PinnedTools {
  /** The tools whose definitions match their pins (new ones pinned now). */
  tools: readonly McpTool[];
  /** The withheld tools, as `missing` entries. */
  missing: MissingTool[];
}

/** Most scopes (a user and server each) a tool list is remembered as verified for. */
const MAX_VERIFIED_SCOPES = 4096;

/**
 * Trust on first use, fail closed: the first definition seen of each (user, server, tool) is
 * pinned by hash; a later definition that differs is withheld until it is accepted.
 */
export class ToolPins {
  #records: PinRecords;
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
      checkStore(store, { name: "pinning.store", methods: ["get", "set", "setIfAbsent", "list"] });
    }
    this.#records = new PinRecords(store);
    this.#tofu = options.trustOnFirstUse ?? true;
    this.#hint = options.reviewHint;
    this.#emit = emit;
  }

  /**
   * Checks a server's current tools against their pins, pinning tools seen for the first time.
   * Fails closed: when the pins cannot be read, every tool is withheld, under one `missing` entry
   * named by the server that says why.
   *
   * @param scope The server (and user).
   * @param tools The server's current tool list.
   * @returns The tools to expose and the withheld ones.
   */
  async check(scope: PinScope, tools: readonly McpTool[]): Promise<PinnedTools> {
    try {
      return await this.#check(scope, tools);
    } catch (error) {
      const name = scope.serverId;
      const reason = `the tool pins of this MCP server cannot be checked (${
        errorMessage(error)
      }); its tools are withheld`;
      return { tools: [], missing: [{ selection: "mcpServers", name, reason }] };
    }
  }

  async #check(scope: PinScope, tools: readonly McpTool[]): Promise<PinnedTools> {
    const key = scope.key ?? scopeKey(scope);
    if (this.#verified.get(tools)?.has(key)) return { tools, missing: [] };
    // Shared definitions are hashed once for every user; an in-memory check then never waits.
    const known = tools.map((tool) => knownToolDefinitionHash(tool));
    const hashes = known.includes(undefined)
      ? await Promise.all(tools.map((tool, i) => known[i] ?? hashToolDefinition(tool)))
      : known as ToolDefinitionHash[];
    const pins = hashes.map((hashed, i) =>
      this.#records.lookup(scope, tools[i], hashed, this.#tofu)
    );
    const settled = pins.some((pin) => pin instanceof Promise)
      ? await Promise.all(pins)
      : pins as (Pinned | undefined)[];
    const verdicts = settled.map((pin, i) =>
      pin?.hash === hashes[i].hash ? undefined : this.#withhold(scope, tools[i], hashes[i], pin)
    );
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
      let scopes = this.#verified.get(tools);
      // A global server's list lives as long as it does not change, and lists equal in content
      // are one object for every user: past the bound the list's scopes start over (each is
      // checked once more), else every user who ever came would stay in the set.
      if (scopes === undefined || scopes.size >= MAX_VERIFIED_SCOPES) scopes = new Set<string>();
      this.#verified.set(tools, scopes.add(key));
    } else this.#withheld.set(key, withheld);
    return { tools: withheld.size === 0 ? tools : kept, missing };
  }

  /**
   * Whether this tool list was already found to match the scope's pins (and nothing was
   * withheld from it): a call to one of its tools needs no further check. Synchronous, so the
   * common call pays no promise for its pin check.
   *
   * @param scope The server (and user).
   * @param tools The server's current tool list.
   * @returns `true` when the list is verified for the scope.
   */
  verified(scope: PinScope, tools: readonly McpTool[]): boolean {
    return this.#verified.get(tools)?.has(scope.key ?? scopeKey(scope)) === true;
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
    const { missing } = await this.check(scope, tools);
    // The tool's own entry, or the server's when its pins could not be read.
    const names = [`${scope.serverId}/${toolName}`, scope.serverId];
    return missing.find((entry) => names.includes(entry.name))?.reason;
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
      const hashed = await hashToolDefinition(tool);
      // One user's acceptance on a global server is recorded only where it differs from what
      // the user follows now (the server-wide pin).
      const old = await this.#records.lookup(scope, tool, hashed, false);
      if (old?.hash === hashed.hash) continue;
      await this.#records.put(scope, tool, hashed);
      changed.push(tool.name);
    }
    this.#withheld.delete(scopeKey(scope));
    this.#verified = new WeakMap();
    this.#emit({ ...serverOf(scope), type: "tools_accepted", tools: changed.length });
    return changed;
  }

  /**
   * The tools withheld at a scope's last check.
   *
   * @param scope The server (and user).
   * @returns Tool names, sorted; empty when none.
   */
  withheld(scope: PinScope): string[] {
    if (isOwnServer(scope) || isUserOfGlobal(scope)) {
      return [...(this.#withheld.get(scopeKey(scope))?.keys() ?? [])].sort();
    }
    // A global server's status: what is withheld from anyone (server-wide or one user).
    const prefix = scopeKey(scope);
    const names = new Set<string>();
    for (const [key, tools] of this.#withheld) {
      if (key.startsWith(prefix)) { for (const name of tools.keys()) names.add(name); }
    }
    return [...names].sort();
  }

  #withhold(
    scope: PinScope,
    tool: McpTool,
    { hash, fields }: ToolDefinitionHash,
    pin: Pinned | undefined,
  ): string {
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
      this.#emit({ ...serverOf(scope), type: "tool_withheld", tool: tool.name, message: reason });
    }
    return reason;
  }

  #next(scope: PinScope): string {
    if (this.#hint !== undefined) return this.#hint;
    const server = JSON.stringify(scope.serverId);
    if (scope.userId === undefined) {
      return `review it, then call gateway.acceptToolChanges(${server})`;
    }
    const user = `gateway.acceptToolChanges(${server}, { userId: ${
      JSON.stringify(scope.userId)
    } })`;
    return isUserOfGlobal(scope)
      ? `review it, then call ${user} for this user, or gateway.acceptToolChanges(${server}) server-wide`
      : `review it, then call ${user}`;
  }
}

function changedFields(pin: Pinned, fields: Record<string, string>): string {
  if (pin.fields === undefined) return "fields not recorded";
  const changed = PINNED_FIELDS.filter((field) => pin.fields?.[field] !== fields[field]);
  return changed.length === 0 ? "hash differs" : `changed: ${changed.join(", ")}`;
}

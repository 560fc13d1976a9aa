import { abortable } from "@std/async";
import { listAllTools } from "../../list_all_tools.ts";
import type { Client, McpTool } from "../../mcp_sdk.ts";
import type { SharedToolDefinitions } from "./shared_tool_definitions.ts";
import type { Redactor } from "../calls/redactor.ts";

/** What listing a connection's tools needs. */
export interface ToolListSettings {
  /** Deadline of one listing (all its pages). */
  connectTimeoutMs: number;
  /** Age after which the list is listed again on use. */
  toolListTtlMs?: number;
  /** Shares tool definitions (and lists) between the gateway's connections. */
  toolDefinitions?: SharedToolDefinitions;
}

/**
 * A connection's tool list: listed on connect, listed again on a change or by age, one listing at
 * a time per client, and shared with every other connection that got the same definitions.
 */
export abstract class ToolListCache {
  /**
   * The SDK client; absent while closed or failed, and while parked: `ready` without a client is
   * an idle connection of a sessionless server that let its client go (see `park`). A listing of
   * a client that is no longer this one is dropped.
   */
  protected client?: Client;
  /**
   * The cached tool list (empty until connected). Fields, not getters, as `index`: a call reads
   * them without running code of this file. Set only here.
   */
  tools: readonly McpTool[] = [];
  /** What calls look up in the list, made once per (shared) list. */
  index: ToolListIndex = EMPTY;
  /** Increases whenever the tool list changes (a field as `tools`; set only here). */
  version = 0;
  /** Whole milliseconds, as `lastUsedAt` (no number box per connection). */
  #listedAt = 0;
  /** The one refresh running (per client), and whether a change was announced during it. */
  #refreshing?: { client: Client; done: Promise<void>; again: boolean };

  /**
   * The list, listed again first when it is older than `toolListTtlMs`.
   *
   * @param client The client to list on (a parked connection builds one again).
   * @param signal Ends the wait (the listing goes on).
   */
  protected async current(
    client: () => Promise<Client>,
    signal?: AbortSignal,
  ): Promise<readonly McpTool[]> {
    const ttl = this.settings.toolListTtlMs;
    if (ttl !== undefined && performance.now() - this.#listedAt >= ttl) {
      const refresh = client().then((ready) => this.refresh(ready, false));
      await (signal === undefined ? refresh : abortable(refresh, signal));
    }
    return this.tools;
  }

  protected get refreshing(): boolean {
    return this.#refreshing !== undefined;
  }

  /** The listing's deadline and the shared definitions. */
  abstract get settings(): ToolListSettings;

  /** Keeps the connection's credentials out of what it lists. */
  abstract get redactor(): Redactor;

  /** Told when a listing changed the list (after connect). */
  protected abstract listChanged(tools: number): void;

  /**
   * Lists a client's tools, shared by content with the gateway's other connections.
   *
   * @returns The tools (not kept yet: see `keep`).
   */
  protected async listOf(client: Client): Promise<readonly McpTool[]> {
    const { connectTimeoutMs, toolDefinitions } = this.settings;
    const listed = await listAllTools(client, { timeoutMs: connectTimeoutMs });
    // Without the connection's credentials, as its results: a definition reaches every model
    // this server's tools are shown to (a global server's, every user's).
    const tools = this.redactor.value(listed);
    return toolDefinitions?.share(tools) ?? tools;
  }

  /**
   * Keeps a listed tool list as the current one.
   */
  protected keep(tools: readonly McpTool[]): void {
    this.tools = tools;
    this.index = toolListIndex(tools);
    this.#listedAt = Math.floor(performance.now());
    this.version++;
  }

  /**
   * Lists the tools again, one listing at a time per client, so an older answer never replaces a
   * newer one. A change announced while a listing runs (`changed`) queues one more listing; a
   * TTL refresh just joins the running one.
   *
   * @param client The client to list on.
   * @param changed Whether the server announced a change.
   * @returns Settles when the listing ends.
   */
  protected refresh(client: Client, changed: boolean): Promise<void> {
    const running = this.#refreshing;
    if (running?.client === client) {
      running.again ||= changed;
      return running.done;
    }
    const refresh = { client, done: Promise.resolve(), again: false };
    refresh.done = this.#relist(refresh).finally(() => {
      if (this.#refreshing === refresh) this.#refreshing = undefined;
    });
    this.#refreshing = refresh;
    return refresh.done;
  }

  async #relist(refresh: { client: Client; again: boolean }): Promise<void> {
    const { client } = refresh;
    do {
      refresh.again = false;
      try {
        const tools = await this.listOf(client);
        if (this.client !== client) return;
        this.keep(tools);
        this.listChanged(tools.length);
      } catch {
        // The list stays as it was; a lost connection is reported by onclose.
        if (this.client !== client) return;
      }
    } while (refresh.again);
  }
}

/** What a call looks up in a connection's tool list. */
export interface ToolListIndex {
  /** The tools with an output schema (the SDK client validates their results), by name. */
  withOutput: ReadonlyMap<string, McpTool>;
  /** The tools that must run as tasks (`execution.taskSupport: "required"`). */
  taskNames: ReadonlySet<string>;
}

/** One index per list object: the users of one server share their list, and so its index. */
const indexes = new WeakMap<readonly McpTool[], ToolListIndex>();

const EMPTY: ToolListIndex = Object.freeze({
  withOutput: new Map<string, McpTool>(),
  taskNames: new Set<string>(),
});

/**
 * The index of a tool list, made once per list object (lists are shared between the connections
 * of a gateway, see `SharedToolDefinitions`).
 *
 * @returns Its index.
 */
function toolListIndex(tools: readonly McpTool[]): ToolListIndex {
  if (tools.length === 0) return EMPTY;
  let index = indexes.get(tools);
  if (index === undefined) {
    const withOutput = new Map<string, McpTool>();
    const taskNames = new Set<string>();
    for (const tool of tools) {
      if (tool.outputSchema !== undefined) withOutput.set(tool.name, tool);
      const execution = (tool as { execution?: { taskSupport?: unknown } }).execution;
      if (execution?.taskSupport === "required") taskNames.add(tool.name);
    }
    index = { withOutput, taskNames };
    indexes.set(tools, index);
  }
  return index;
}

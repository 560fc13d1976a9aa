import type { ToolSet } from "../../core/tool_set.ts";
import { SEARCH_TOOLS_NAME } from "../../core/search_tools_tool.ts";

/**
 * Most clients whose loaded tools are remembered, in all and per user; the longest unused is
 * forgotten first. Each holds a tool set and its search index, so a user who opens session after
 * session cannot make serve hold more than these.
 */
const MAX_CLIENTS = 1024;
const MAX_CLIENTS_PER_USER = 64;

/**
 * What each client of `serve --defer` has loaded: the tool set it was last served, per user and
 * MCP session (stdio and session-less HTTP: per user). A client's next tool set starts with the
 * names that one listed, in the same order, so a search of one client lists tools for that client
 * alone and its list only ever grows.
 */
export class DeferredClients {
  #keep: readonly string[];
  #last = new Map<string, ToolSet>();

  /** @param keep The tools every client's set lists from the start (`defer.keep`). */
  constructor(keep: readonly string[]) {
    this.#keep = keep;
  }

  /**
   * The key of one client: its user and MCP session.
   *
   * @param session The MCP session id, when the transport has one.
   * @returns The key, also used as the tool set's `session` (result handles).
   */
  key(userId: string | undefined, session: string | undefined): string {
    return JSON.stringify([userId ?? null, session ?? null]);
  }

  /** The tool set this client was served last, if any. */
  last(key: string): ToolSet | undefined {
    return this.#last.get(key);
  }

  /**
   * The names a new set of this client lists from the start: what its last set listed (the
   * searches it made included), else the configured ones.
   *
   * @returns The names, in order, without `search_tools` (always first).
   */
  keepOf(key: string): string[] {
    const last = this.#last.get(key);
    return last === undefined
      ? [...this.#keep]
      : last.names.filter((name) => name !== SEARCH_TOOLS_NAME);
  }

  /** Remembers the set a client was served. */
  remember(key: string, toolSet: ToolSet): void {
    this.#last.delete(key);
    this.#last.set(key, toolSet);
    // Keys are JSON arrays [user, session]: a user's keys share the text up to the comma.
    const prefix = key.slice(0, key.length - JSON.stringify(JSON.parse(key)[1]).length - 1);
    const own = [...this.#last.keys()].filter((each) => each.startsWith(prefix));
    if (own.length > MAX_CLIENTS_PER_USER) this.#last.delete(own[0]);
    if (this.#last.size > MAX_CLIENTS) this.#last.delete(this.#last.keys().next().value!);
  }
}

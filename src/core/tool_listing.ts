import {
  type AnthropicTool,
  type AnthropicToolSearchTool,
  type McpToolDescription,
  type OpenAITool,
  toAnthropicTool,
  toMcpTool,
  toOpenAITool,
} from "./tool_formats.ts";
import {
  type OpenAIResponsesTool,
  toOpenAIResponsesFunction,
  toOpenAIResponsesSearch,
} from "./openai_responses_format.ts";
import type { RoutedTool, UpstreamServer } from "./tool_source.ts";
import { ToolSearchIndex } from "./tool_search_index.ts";
import { SEARCH_TOOLS_NAME, searchToolsTool } from "./search_tools_tool.ts";
import { READ_RESULT_NAME } from "./read_result_tool.ts";

/**
 * Deferred exposure: the tool set lists only the kept tools and `search_tools`; a search lists
 * the tools it returns as well. `true` keeps none.
 */
export type DeferSetting = boolean | {
  /**
   * Tools listed from the start, in this order (after `search_tools`). Names the request may not
   * use are ignored.
   */
  keep?: readonly string[];
};

/**
 * What a tool set lists and its renderings: the listed tools in order (entries only appended, so
 * a prompt cache of the list stays valid), and for a deferred set the catalog of every tool the
 * request may use, which `search_tools` and the providers' own tool searches load from.
 */
export class ToolListing {
  /**
   * What calls find, by name: the listed tools, and once the set was rendered for a provider's
   * own search every tool of the deferred catalog. A call reads it directly, without a lookup.
   */
  readonly callable: ReadonlyMap<string, RoutedTool>;
  /** A deferred set's own `search_tools`: the policy asks nothing about a call to it. */
  readonly search?: RoutedTool;
  #ordered: RoutedTool[];
  #byName: Map<string, RoutedTool>;
  #callable: Map<string, RoutedTool>;
  /** Deferred sets: every tool the request may use, which searches load from; else undefined. */
  #deferred?: { tools: readonly RoutedTool[]; byName: Map<string, RoutedTool> };
  #index?: ToolSearchIndex;
  /** Set once the host rendered the deferred tools for a provider's own search: all callable. */
  #native = false;
  #names?: readonly string[];
  #openai?: OpenAITool[];

  /**
   * @param tools The tools the request may use, one per name.
   * @param options `defer` (see {@linkcode DeferSetting}); `readResult`, the set's `read_result`
   *   when it has result budgets (so `keep` may name it).
   */
  constructor(
    tools: readonly RoutedTool[],
    options: { defer?: DeferSetting; readResult?: RoutedTool },
  ) {
    const sorted = [...tools].sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    const keep = keptNames(options.defer);
    if (keep === undefined) this.#ordered = sorted;
    else {
      // The catalog is exactly the list an eager set would expose: one source of truth for what
      // a search may return. The tool set's own search tool is never part of it.
      const catalog = sorted.filter((tool) => tool.name !== SEARCH_TOOLS_NAME);
      const byName = new Map(catalog.map((tool) => [tool.name, tool]));
      this.#deferred = { tools: catalog, byName };
      this.search = searchToolsTool(this.#search);
      this.#ordered = [this.search];
      for (const name of new Set(keep)) {
        const tool = name === READ_RESULT_NAME && options.readResult !== undefined
          ? options.readResult
          : byName.get(name);
        if (tool !== undefined) this.#ordered.push(tool);
      }
    }
    this.#byName = new Map(this.#ordered.map((tool) => [tool.name, tool]));
    this.callable = this.#callable = new Map(this.#byName);
  }

  /** The listed tools in the OpenAI function format (cached until a tool is appended). */
  get openai(): OpenAITool[] {
    return this.#openai ??= this.#ordered.map(toOpenAITool);
  }

  /** The listed names, in order. */
  get names(): readonly string[] {
    return this.#names ??= Object.freeze(this.#ordered.map((tool) => tool.name));
  }

  /** A listed tool or one a deferred set's search may find (listed or not). */
  findable(name: string): RoutedTool | undefined {
    return this.#byName.get(name) ?? this.#deferred?.byName.get(name);
  }

  /** Whether a name is listed now. */
  listed(name: string): boolean {
    return this.#byName.has(name);
  }

  /** Lists a tool after the ones listed, leaving earlier renderings as they were. */
  append(tool: RoutedTool): void {
    this.#ordered.push(tool);
    this.#byName.set(tool.name, tool);
    this.#callable.set(tool.name, tool);
    this.#openai = undefined;
    this.#names = undefined;
  }

  /** The Anthropic rendering; `native` renders a deferred set for Anthropic's tool search. */
  anthropic(native: boolean): (AnthropicTool | AnthropicToolSearchTool)[] {
    const split = native ? this.#nativeSplit() : undefined;
    if (split === undefined) return this.#ordered.map(toAnthropicTool);
    return [
      { type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" },
      ...split.listed.map(toAnthropicTool),
      ...split.rest.map((tool) => ({ ...toAnthropicTool(tool), defer_loading: true as const })),
    ];
  }

  /** The OpenAI Responses rendering; `native` renders a deferred set for OpenAI's tool search. */
  responses(native: boolean): OpenAIResponsesTool[] {
    const split = native ? this.#nativeSplit() : undefined;
    if (split === undefined) return this.#ordered.map(toOpenAIResponsesFunction);
    return toOpenAIResponsesSearch(split.listed, split.rest);
  }

  /** The MCP `tools/list` rendering. */
  mcp(): McpToolDescription[] {
    return this.#ordered.map(toMcpTool);
  }

  /**
   * The MCP servers of the listed and findable tools, a user's own server before a global one of
   * its id, each with the resources its tools name in `_meta`.
   *
   * @returns The servers, in the order of their first tool.
   */
  upstreams(): { server: UpstreamServer; views: string[] }[] {
    const found = new Map<string, { server: UpstreamServer; views: string[] }>();
    const tools = [...this.#ordered, ...(this.#deferred?.tools ?? [])];
    // A user's own server shadows a global one of the same id, as its tools do.
    tools.sort((a, b) => Number(b.source === "user_mcp") - Number(a.source === "user_mcp"));
    for (const tool of tools) {
      const server = tool.upstream;
      if (server === undefined) continue;
      let entry = found.get(server.id);
      if (entry === undefined) found.set(server.id, entry = { server, views: [] });
      if (entry.server !== server) continue;
      for (const view of viewsOf(tool)) if (!entry.views.includes(view)) entry.views.push(view);
    }
    return [...found.values()];
  }

  /** A deferred set's listed tools (without the search) and the rest; all callable from now. */
  #nativeSplit(): { listed: RoutedTool[]; rest: RoutedTool[] } | undefined {
    const deferred = this.#deferred;
    if (deferred === undefined) return undefined;
    if (!this.#native) {
      this.#native = true;
      // A listed tool keeps its name; the rest of the catalog becomes callable.
      for (const tool of deferred.tools) {
        if (!this.#callable.has(tool.name)) this.#callable.set(tool.name, tool);
      }
    }
    return {
      listed: this.#ordered.filter((tool) => tool !== this.search),
      rest: deferred.tools.filter((tool) => !this.#byName.has(tool.name)),
    };
  }

  /** Searches the deferred catalog and lists what it found, appended after what was listed. */
  #search = (query: string, limit: number): readonly RoutedTool[] => {
    const deferred = this.#deferred!;
    const found = (this.#index ??= new ToolSearchIndex(deferred.tools)).search(query, limit);
    for (const tool of found) {
      if (!this.#byName.has(tool.name)) this.append(tool);
    }
    return found;
  };
}

function keptNames(defer: DeferSetting | undefined): readonly string[] | undefined {
  if (defer === undefined || defer === false) return undefined;
  if (defer === true) return [];
  const keep = defer !== null && typeof defer === "object" ? defer.keep ?? [] : undefined;
  if (!Array.isArray(keep) || keep.some((name) => typeof name !== "string")) {
    throw new TypeError(
      `Cannot expose tools: "defer" must be true or { keep: ["name", ...] }, received ${
        JSON.stringify(defer)
      }`,
    );
  }
  return keep;
}

/** The resources a tool's `_meta` names (MCP Apps' `ui.resourceUri`, or the older keys). */
function viewsOf(tool: RoutedTool): string[] {
  const meta = tool.meta;
  if (meta === undefined) return [];
  const ui = meta.ui as { resourceUri?: unknown } | null | undefined;
  const named = [
    ui !== null && typeof ui === "object" ? ui.resourceUri : undefined,
    meta["ui/resourceUri"],
    meta["openai/outputTemplate"],
  ];
  return named.filter((uri): uri is string => typeof uri === "string");
}

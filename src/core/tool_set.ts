import { ToolError } from "./tool_error.ts";
import type { CallOptions, CallSettings, ToolCallResult } from "./tool_call_types.ts";
import { callTool, type ToolCall } from "./tool_call.ts";
import {
  type AnthropicTool,
  type AnthropicToolSearchTool,
  type McpToolDescription,
  type OpenAITool,
  toAnthropicTool,
  toMcpTool,
  toOpenAITool,
} from "./tool_formats.ts";
import type { MissingTool, RoutedTool, SourceKind, UpstreamServer } from "./tool_source.ts";
import type { PolicyGate, RunTool } from "./policy/policy_gate.ts";
import { policyGates } from "./policy/_gates.ts";
import { stoppedResult } from "./policy/policy_results.ts";
import type { ApprovalAnswer, PendingApproval } from "./policy_types.ts";
import { type BatchCall, callAll, type CallAllOptions } from "./policy/call_all.ts";
import { ToolSearchIndex } from "./tool_search_index.ts";
import { SEARCH_TOOLS_NAME, searchToolsTool } from "./search_tools_tool.ts";
import type { ResultBudgets, ResultOwner } from "./result_budget.ts";
import { resultBudgetsOf } from "./_result_budgets.ts";
import { READ_RESULT_NAME, readResultTool } from "./read_result_tool.ts";
import {
  type OpenAIResponsesTool,
  toOpenAIResponsesFunction,
  toOpenAIResponsesSearch,
} from "./openai_responses_format.ts";
import type { ToolHook } from "./hooks/tool_hook.ts";
import { callHooked } from "./hooks/hooked_call.ts";
import { isReadOnlyTool } from "./read_only_tool.ts";

/** A name that more than one selected source offers, and which source won. */
export interface ShadowedTool {
  /** The exposed name. */
  name: string;
  /**
   * The source whose tool is exposed; `"router"` when the name is reserved by the router
   * (`search_tools` in a deferred tool set).
   */
  winner: SourceKind | "router";
  /** The sources whose tools of that name are hidden, highest first. */
  hidden: SourceKind[];
  /**
   * For a name equal to the winner's only ignoring case (`Read_File` and `read_file`): the
   * qualified name the lower tool is exposed under instead of being hidden.
   */
  exposedAs?: string;
}

/** What `ToolSet` is built from; `ToolRouter#expose` makes it. */
export interface ToolSetInit {
  /** The exposed tools, one per name. */
  tools: readonly RoutedTool[];
  /** Names that lost to a higher source. */
  shadowed: ShadowedTool[];
  /** Names of the selection that could not be exposed. */
  missing: MissingTool[];
  /** The request's user. */
  userId?: string;
  /** The router's call settings. */
  settings: CallSettings;
  /** Deferred exposure (see {@linkcode ToolSelection}`.defer`); absent: every tool is listed. */
  defer?: DeferSetting;
  /** The host's session: result handles are shared by the sets of one user and session. */
  session?: string;
  /** Hooks around every call, in order (the router's, then the request's). */
  hooks?: readonly ToolHook[];
}

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
 * The tools one request may use, and the only way a model's tool call gets executed.
 *
 * Made by `ToolRouter#expose`. Only names in this set run; the user id comes from the selection.
 */
export class ToolSet {
  /** Names of the selection that lost to a higher source. */
  readonly shadowed: readonly ShadowedTool[];
  /** Names of the selection that could not be exposed, and why. */
  readonly missing: readonly MissingTool[];
  /** The request's user, if any. */
  readonly userId?: string;
  #byName: Map<string, RoutedTool>;
  #ordered: RoutedTool[];
  /** Deferred sets: every tool the request may use, which searches load from; else undefined. */
  #deferred?: { tools: readonly RoutedTool[]; byName: Map<string, RoutedTool> };
  #index?: ToolSearchIndex;
  /** Set once the host rendered the deferred tools for Anthropic's own search: all are callable. */
  #native = false;
  #settings: CallSettings;
  #names?: readonly string[];
  #openai?: OpenAITool[];
  #policy?: PolicyGate;
  #results?: ResultBudgets;
  /** Whose stored results this set reads: its user and its own id, or the host's session. */
  #owner: ResultOwner;
  #hooks?: readonly ToolHook[];

  /**
   * Builds a tool set. Hosts use `ToolRouter#expose` instead (the router's plumbing: left out
   * of the documentation).
   *
   * @param init The resolved tools and reports.
   * @ignore
   */
  constructor(init: ToolSetInit) {
    const sorted = [...init.tools].sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    const keep = keptNames(init.defer);
    const results = resultBudgetsOf.get(init);
    if (keep === undefined) this.#ordered = sorted;
    else {
      // The catalog is exactly the list an eager set would expose: one source of truth for what
      // a search may return. The tool set's own search tool is never part of it.
      const catalog = sorted.filter((tool) => tool.name !== SEARCH_TOOLS_NAME);
      const byName = new Map(catalog.map((tool) => [tool.name, tool]));
      this.#deferred = { tools: catalog, byName };
      this.#ordered = [searchToolsTool(this.#search)];
      for (const name of new Set(keep)) {
        const tool = name === READ_RESULT_NAME && results !== undefined
          ? readResultTool(this.#read)
          : byName.get(name);
        if (tool !== undefined) this.#ordered.push(tool);
      }
    }
    this.#results = results;
    this.#owner = {
      userId: init.userId,
      scope: init.session === undefined ? `set:${crypto.randomUUID()}` : `session:${init.session}`,
    };
    // A set of a session whose earlier sets cut results can read them from the start.
    if (
      this.#results?.holds(this.#owner) === true &&
      !this.#ordered.some((tool) => tool.name === READ_RESULT_NAME)
    ) this.#ordered.push(readResultTool(this.#read));
    this.#byName = new Map(this.#ordered.map((tool) => [tool.name, tool]));
    this.shadowed = init.shadowed;
    this.missing = init.missing;
    this.userId = init.userId;
    this.#settings = init.settings;
    this.#policy = policyGates.get(init);
    if (init.hooks !== undefined && init.hooks.length > 0) this.#hooks = init.hooks;
  }

  /**
   * The tools for the model in the OpenAI function format, in the set's order: the tools it
   * started with sorted by name (deferred: `search_tools`, then the kept tools in `keep` order),
   * then each tool that became available later (a search loaded it), appended in the order it
   * arrived. An entry is never inserted, moved or removed, so a prompt cache of the list stays
   * valid across the set's life.
   */
  get tools(): OpenAITool[] {
    return this.#openai ??= this.#ordered.map(toOpenAITool);
  }

  /** The exposed names, in the order of {@linkcode ToolSet#tools}. */
  get names(): readonly string[] {
    return this.#names ??= Object.freeze(this.#ordered.map((tool) => tool.name));
  }

  /**
   * Returns whether a name is exposed.
   *
   * @param name The tool name.
   * @returns `true` when calls to it execute.
   */
  has(name: string): boolean {
    return this.#lookup(name) !== undefined;
  }

  /**
   * Returns the source of an exposed name.
   *
   * @param name The tool name.
   * @returns The source, or `undefined` when the name is not exposed.
   */
  sourceOf(name: string): SourceKind | undefined {
    return this.#lookup(name)?.source;
  }

  /**
   * The tools in the Anthropic Messages API format.
   *
   * With `{ native: true }`, a deferred set is rendered for Anthropic's own tool search instead:
   * its BM25 tool search tool, the listed tools (without `search_tools`), then every other tool
   * the request may use with `defer_loading: true`, so Anthropic's search covers exactly what a
   * `search_tools` search would. From then on every one of them is callable (Anthropic loads
   * them without telling the host); the portable list is left as it is, so the rendering stays
   * the same across calls. Send the beta header Anthropic's docs name with it. An eager set has
   * nothing to defer and renders as without the option.
   *
   * @example Render a deferred set for Anthropic's tool search
   * ```ts
   * import { defineTool, ToolRouter } from "@toolroute/toolroute";
   * import { z } from "zod";
   * import { assertEquals } from "@std/assert";
   *
   * const echo = defineTool({
   *   name: "echo",
   *   description: "Echoes text",
   *   input: z.object({ text: z.string() }),
   *   run: ({ text }) => text,
   * });
   * const tools = await new ToolRouter({ functions: [echo] }).expose({
   *   functions: ["echo"],
   *   defer: true,
   * });
   * const rendered = tools.toAnthropic({ native: true });
   * assertEquals(rendered.map((tool) => [tool.name, "defer_loading" in tool]), [
   *   ["tool_search_tool_bm25", false],
   *   ["echo", true],
   * ]);
   * assertEquals(await tools.invoke("echo", { text: "hi" }), "hi");
   * ```
   *
   * @returns One entry per exposed tool, in the order of {@linkcode ToolSet#tools}.
   */
  toAnthropic(): AnthropicTool[];
  /**
   * The tools in the Anthropic Messages API format; with `{ native: true }` a deferred set is
   * rendered for Anthropic's own tool search (see the overload above).
   *
   * @param options `native: true` for Anthropic's tool search.
   * @returns The entries, the search tool first when native.
   */
  toAnthropic(options: { native?: boolean }): (AnthropicTool | AnthropicToolSearchTool)[];
  toAnthropic(options: { native?: boolean } = {}): (AnthropicTool | AnthropicToolSearchTool)[] {
    if (options === null || typeof options !== "object") {
      throw new TypeError("Cannot render tools: pass { native: true } or nothing");
    }
    const deferred = this.#deferred;
    if (options.native !== true || deferred === undefined) {
      return this.#ordered.map(toAnthropicTool);
    }
    this.#native = true;
    const listed = this.#ordered.filter((tool) => !this.#isSearch(tool.name));
    const rest = deferred.tools.filter((tool) => !this.#byName.has(tool.name));
    return [
      { type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" },
      ...listed.map(toAnthropicTool),
      ...rest.map((tool) => ({ ...toAnthropicTool(tool), defer_loading: true as const })),
    ];
  }

  /**
   * The tools in the OpenAI Responses API format (flat `{ type: "function", name, ... }`), in the
   * order of {@linkcode ToolSet#tools}.
   *
   * With `{ native: true }`, a deferred set is rendered for OpenAI's own tool search instead:
   * `{ type: "tool_search" }`, the listed tools (without `search_tools`), then every other tool
   * the request may use with `defer_loading: true`: one namespace per MCP server or service (its
   * id), the built-ins and function tools on their own. The functions keep the set's names, so
   * a `function_call`'s `name` is what {@linkcode ToolSet#call} takes. As with Anthropic's, every
   * one of them is callable from then on and the portable list is left as it is. An eager set
   * renders as without the option.
   *
   * @example Render a deferred set for OpenAI's tool search
   * ```ts
   * import { defineMcpService, ToolRouter } from "@toolroute/toolroute";
   * import { z } from "zod";
   * import { assertEquals } from "@std/assert";
   *
   * const linear = defineMcpService({
   *   name: "linear",
   *   tools: {
   *     create_issue: {
   *       description: "Create a Linear issue",
   *       input: z.object({ title: z.string() }),
   *       run: ({ title }) => `created ${title}`,
   *     },
   *   },
   * });
   * const tools = await new ToolRouter({ mcpServices: [linear] }).expose({
   *   mcpServices: ["linear"],
   *   defer: true,
   * });
   * const [search, namespace] = tools.toOpenAIResponses({ native: true });
   * assertEquals(search, { type: "tool_search" });
   * assertEquals(namespace.type === "namespace" && namespace.tools[0].name, "linear_create_issue");
   * assertEquals(await tools.invoke("linear_create_issue", { title: "Bug" }), "created Bug");
   * ```
   *
   * @param options `native: true` for OpenAI's tool search.
   * @returns The Responses `tools`.
   */
  toOpenAIResponses(options: { native?: boolean } = {}): OpenAIResponsesTool[] {
    if (options === null || typeof options !== "object") {
      throw new TypeError("Cannot render tools: pass { native: true } or nothing");
    }
    const deferred = this.#deferred;
    if (options.native !== true || deferred === undefined) {
      return this.#ordered.map(toOpenAIResponsesFunction);
    }
    this.#native = true;
    const listed = this.#ordered.filter((tool) => !this.#isSearch(tool.name));
    return toOpenAIResponsesSearch(
      listed,
      deferred.tools.filter((tool) => !this.#byName.has(tool.name)),
    );
  }

  /**
   * The MCP servers this set's tools come from (listed, or findable by a deferred set's search),
   * one per server id: a user's own server before a global one of that id. Each comes with the
   * resources its tools name in `_meta` (MCP Apps views: `ui.resourceUri`,
   * `openai/outputTemplate`). A server none of whose tools the request may use (hidden by a
   * policy's `server:ID` rule) is not among them: `toolroute serve` offers the resources, prompts
   * and completions of these servers only, on the set's own user's connections.
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

  /**
   * The MCP server an exposed tool comes from (see {@linkcode ToolSet#upstreams}).
   *
   * @param name The tool name.
   * @returns The server, or `undefined` for a tool of another source or a name not exposed.
   */
  upstreamOf(name: string): UpstreamServer | undefined {
    return (this.#byName.get(name) ?? this.#deferred?.byName.get(name))?.upstream;
  }

  /**
   * The tools in the MCP `tools/list` format.
   *
   * @returns One entry per exposed tool, in the order of {@linkcode ToolSet#tools}.
   */
  toMcp(): McpToolDescription[] {
    return this.#ordered.map(toMcpTool);
  }

  /**
   * Calls an exposed tool with the model's arguments and returns the details.
   *
   * Never rejects for anything the call caused: errors come back with `isError` and a code.
   *
   * @param name The tool name the model called.
   * @param args The model's arguments: JSON text or a parsed object.
   * @param options Signal, deadline and progress listener.
   * @returns The result text with its error state, code and source.
   */
  call(name: string, args?: unknown, options: CallOptions = {}): Promise<ToolCallResult> {
    // The search reveals only tools the request may use, and read_result only results of calls
    // the policy let run, so no policy rule is asked about them.
    const own = this.#isSearch(name) || this.#isReadResult(name);
    const tool = this.#policy === undefined || own ? undefined : this.#lookup(name);
    if (tool !== undefined) return this.#policy!.call(tool, args, options, this.#run);
    const found = this.#lookup(name);
    const call: ToolCall = {
      tool: found,
      name,
      args,
      options,
      userId: this.userId,
      known: this.#known,
      unavailable: this.#unavailable,
    };
    // The set's own tools answer from this set alone (its allowlist, its handles), which a hook
    // cannot see: a cache keyed by user and arguments would hand one set's answer to another.
    const called = own ? callTool(call, this.#settings) : this.#exec(call);
    return own || found === undefined
      ? called
      : called.then((result) => this.#budget(result, found));
  }

  /**
   * Calls an exposed tool with the model's arguments and returns the text for the model.
   *
   * @example Call a tool from a model's reply
   * ```ts
   * import { defineTool, ToolRouter } from "@toolroute/toolroute";
   * import { z } from "zod";
   * import { assertEquals, assertMatch } from "@std/assert";
   *
   * const echo = defineTool({
   *   name: "echo",
   *   description: "Echoes text",
   *   input: z.object({ text: z.string() }),
   *   run: ({ text }) => text,
   * });
   * const tools = await new ToolRouter({ functions: [echo] }).expose({ functions: ["echo"] });
   * assertEquals(await tools.invoke("echo", '{"text":"hi"}'), "hi");
   * assertMatch(await tools.invoke("rm_rf", "{}"), /Unknown tool/);
   * ```
   *
   * @param name The tool name the model called.
   * @param args The model's arguments: JSON text or a parsed object.
   * @param options Signal, deadline and progress listener.
   * @returns The result, or a plain-sentence error; never rejects for the model's mistakes.
   */
  invoke(name: string, args?: unknown, options: CallOptions = {}): Promise<string> {
    return this.call(name, args, options).then(textOf);
  }

  /**
   * Runs a call a policy asked about, once a person approved it. The approval must be one this
   * tool set issued (by id or object) or any approval of the router for this user; a changed,
   * expired or already used approval runs nothing and returns `permission_denied`.
   *
   * @example Ask before a deploy, then approve it
   * ```ts
   * import { defineTool, ToolRouter } from "@toolroute/toolroute";
   * import { z } from "zod";
   * import { assertEquals } from "@std/assert";
   *
   * const deploy = defineTool({
   *   name: "deploy",
   *   description: "Deploys",
   *   input: z.object({ env: z.string() }),
   *   run: ({ env }) => `deployed to ${env}`,
   * });
   * const router = new ToolRouter({ functions: [deploy], policy: { ask: ["deploy(env=prod)"] } });
   * const tools = await router.expose({ functions: ["deploy"] });
   * assertEquals(await tools.invoke("deploy", '{"env":"dev"}'), "deployed to dev");
   * const asked = await tools.call("deploy", '{"env":"prod"}');
   * assertEquals(asked.code, "approval_required");
   * // Show asked.approval to a person (it is plain JSON); when they agree:
   * assertEquals((await tools.approve(asked.approval!)).text, "deployed to prod");
   * ```
   *
   * @param approvalOrId The `approval` of an `approval_required` result, or its id.
   * @param options Signal, deadline and progress listener of the call, the `shownDigest` of
   *   what the person approved (when the host's UI keeps it: another digest runs nothing), and
   *   the person's `scope`, edited `arguments` and `reason` (see `ApprovalAnswer`).
   * @returns The call's result.
   */
  approve(
    approvalOrId: PendingApproval | string,
    options: CallOptions & Omit<ApprovalAnswer, "approved"> = {},
  ): Promise<ToolCallResult> {
    const { shownDigest, scope, arguments: edited, reason, ...callOptions } = options;
    const answer: ApprovalAnswer = { approved: true };
    if (shownDigest !== undefined) answer.shownDigest = shownDigest;
    if (scope !== undefined) answer.scope = scope;
    if (edited !== undefined) answer.arguments = edited;
    if (reason !== undefined) answer.reason = reason;
    return this.#settle(approvalOrId, answer, callOptions);
  }

  /**
   * Declines a call a policy asked about: nothing runs, and the text tells the model the user
   * declined, with the reason (code `permission_denied`). The approval is used up.
   *
   * @param approvalOrId The `approval` of an `approval_required` result, or its id.
   * @param reason Why, in the user's words.
   * @returns The result for the model.
   */
  reject(approvalOrId: PendingApproval | string, reason?: string): Promise<ToolCallResult> {
    return this.#settle(approvalOrId, { approved: false, reason }, {});
  }

  /**
   * Runs a model's parallel tool calls, results in the calls' order. Consecutive read-only
   * calls (tools read-only by the host's word, such as `read_file`, or by the `readOnlyHint` of
   * a server the host marked `trusted`) run together, at most
   * `concurrency` (8) at once; any other call waits for everything before it and runs alone.
   *
   * @param calls The calls, with the model's ids.
   * @param options Options for every call, and the concurrency.
   * @returns One result per call, in order, each with its call's `id`.
   */
  callAll(calls: readonly BatchCall[], options: CallAllOptions = {}): Promise<ToolCallResult[]> {
    const { concurrency: _, ...callOptions } = options;
    return callAll(calls, {
      readOnly: (name) => {
        const tool = this.#lookup(name);
        return tool === undefined || isReadOnlyTool(tool);
      },
      call: (call) => this.call(call.name, call.arguments, callOptions),
    }, options);
  }

  #known = (): readonly string[] => this.names;

  /** A call to a tool of a server that is down or still starting names the server. */
  #unavailable = (name: string): ToolError | undefined => {
    const entry = this.missing.find((missing) => missing.tools?.includes(name) === true);
    if (entry === undefined) return undefined;
    return new ToolError(
      "upstream_unavailable",
      `Tool ${JSON.stringify(name)} belongs to the MCP server "${entry.name}", which is not ` +
        `available now: ${entry.reason}. Try again later; the server's tools come back when it ` +
        `is reachable`,
    );
  };

  /** A listed tool, or after a native rendering any tool of the deferred catalog. */
  #lookup(name: string): RoutedTool | undefined {
    return this.#byName.get(name) ??
      (this.#native ? this.#deferred!.byName.get(name) : undefined);
  }

  #isSearch(name: string): boolean {
    return this.#deferred !== undefined && name === SEARCH_TOOLS_NAME;
  }

  #isReadResult(name: string): boolean {
    return this.#results !== undefined && name === READ_RESULT_NAME;
  }

  /** Cuts a result over its budget; the first cut lists `read_result`, appended. */
  async #budget(result: ToolCallResult, tool: RoutedTool): Promise<ToolCallResult> {
    if (this.#results === undefined) return result;
    const budgeted = await this.#results.apply(result, tool, this.#owner);
    if (budgeted.resultHandle !== undefined && !this.#byName.has(READ_RESULT_NAME)) {
      this.#append(readResultTool(this.#read));
    }
    return budgeted;
  }

  #read = (handle: string, range: { offset?: number; limit?: number }) =>
    this.#results!.read(handle, this.#owner, range);

  /** Lists a tool after the ones listed, leaving earlier renderings as they were. */
  #append(tool: RoutedTool): void {
    this.#ordered.push(tool);
    this.#byName.set(tool.name, tool);
    this.#openai = undefined;
    this.#names = undefined;
  }

  /** Searches the deferred catalog and lists what it found, appended after what was listed. */
  #search = (query: string, limit: number): readonly RoutedTool[] => {
    const deferred = this.#deferred!;
    const found = (this.#index ??= new ToolSearchIndex(deferred.tools)).search(query, limit);
    for (const tool of found) {
      if (!this.#byName.has(tool.name)) this.#append(tool);
    }
    return found;
  };

  #run: RunTool = (tool, args, options, decision) =>
    this.#exec({
      tool,
      name: tool.name,
      args,
      options,
      userId: this.userId,
      known: this.#known,
      decision,
    }).then((result) => this.#budget(result, tool));

  /**
   * Runs a call the policy let through: through the hooks when the set has any. Budgets cut the
   * result after the hooks, so an `after` hook (a secret scanner) sees the whole result.
   */
  #exec(call: ToolCall): Promise<ToolCallResult> {
    if (this.#hooks === undefined) return callTool(call, this.#settings);
    return callHooked(call, this.#settings, {
      hooks: this.#hooks,
      engine: this.#policy?.init.engine,
    });
  }

  #settle(
    approvalOrId: PendingApproval | string,
    answer: ApprovalAnswer,
    options: CallOptions,
  ): Promise<ToolCallResult> {
    if (this.#policy === undefined) {
      const known = approvalOrId !== null && typeof approvalOrId === "object";
      return stoppedResult({ name: known ? String(approvalOrId.tool) : "" }, {
        code: "permission_denied",
        text: "This tool set has no policy, so it has no approvals to settle; nothing ran",
      }, {
        settings: this.#settings,
        userId: this.userId,
        fields: {
          decision: "ask",
          rule: known ? String(approvalOrId.rule) : "",
          approval: "invalid",
        },
      });
    }
    return this.#policy.settle(approvalOrId, answer, {
      // An approval is for a tool this request may use even when this set has not listed it
      // (a later process rebuilds a deferred set with nothing found yet).
      lookup: (name) => this.#lookup(name) ?? this.#deferred?.byName.get(name),
      options,
      run: this.#run,
    });
  }
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

function textOf(result: ToolCallResult): string {
  return result.text;
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

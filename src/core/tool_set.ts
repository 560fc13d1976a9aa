import type { CallOptions, ToolCallResult } from "./tool_call_types.ts";
import type {
  AnthropicTool,
  AnthropicToolSearchTool,
  McpToolDescription,
  OpenAITool,
} from "./tool_formats.ts";
import type { MissingTool, SourceKind, UpstreamServer } from "./tool_source.ts";
import type { ApprovalAnswer, PendingApproval } from "./policy_types.ts";
import { type BatchCall, callAll, type CallAllOptions } from "./policy/call_all.ts";
import type { DeferSetting, ToolListing } from "./tool_listing.ts";
import { toolSetParts } from "./_tool_set_parts.ts";
import { type ShadowedTool, ToolSetCalls, type ToolSetInit } from "./tool_set_calls.ts";
import type { OpenAIResponsesTool } from "./openai_responses_format.ts";
import { isReadOnlyTool } from "./read_only_tool.ts";

export type { ShadowedTool, ToolSetInit } from "./tool_set_calls.ts";
export type { DeferSetting };

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
  #list: ToolListing;
  #calls: ToolSetCalls;

  /**
   * Builds a tool set. Hosts use `ToolRouter#expose` instead (the router's plumbing: left out
   * of the documentation).
   *
   * @param init The resolved tools and reports.
   * @ignore
   */
  constructor(init: ToolSetInit) {
    this.#calls = new ToolSetCalls({ ...init, ...toolSetParts.get(init) });
    this.#list = this.#calls.list;
    this.shadowed = init.shadowed;
    this.missing = init.missing;
    this.userId = init.userId;
  }

  /**
   * The tools for the model in the OpenAI function format, in the set's order: the tools it
   * started with sorted by name (deferred: `search_tools`, then the kept tools in `keep` order),
   * then each tool that became available later (a search loaded it), appended in the order it
   * arrived. An entry is never inserted, moved or removed, so a prompt cache of the list stays
   * valid across the set's life.
   */
  get tools(): OpenAITool[] {
    return this.#list.openai;
  }

  /** The exposed names, in the order of {@linkcode ToolSet#tools}. */
  get names(): readonly string[] {
    return this.#list.names;
  }

  /**
   * Returns whether a name is exposed.
   *
   * @param name The tool name.
   * @returns `true` when calls to it execute.
   */
  has(name: string): boolean {
    return this.#list.callable.has(name);
  }

  /**
   * Returns the source of an exposed name.
   *
   * @param name The tool name.
   * @returns The source, or `undefined` when the name is not exposed.
   */
  sourceOf(name: string): SourceKind | undefined {
    return this.#list.callable.get(name)?.source;
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
    return this.#list.anthropic(native(options));
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
    return this.#list.responses(native(options));
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
    return this.#list.upstreams();
  }

  /**
   * The MCP server an exposed tool comes from (see {@linkcode ToolSet#upstreams}).
   *
   * @param name The tool name.
   * @returns The server, or `undefined` for a tool of another source or a name not exposed.
   */
  upstreamOf(name: string): UpstreamServer | undefined {
    return this.#list.findable(name)?.upstream;
  }

  /**
   * The tools in the MCP `tools/list` format.
   *
   * @returns One entry per exposed tool, in the order of {@linkcode ToolSet#tools}.
   */
  toMcp(): McpToolDescription[] {
    return this.#list.mcp();
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
    return this.#calls.call(name, args, options);
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
    return this.call(name, args, options).then((result) => result.text);
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
    return this.#calls.settle(approvalOrId, { ...options, approved: true });
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
    return this.#calls.settle(approvalOrId, { approved: false, reason });
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
        const tool = this.#list.callable.get(name);
        return tool === undefined || isReadOnlyTool(tool);
      },
      call: (call) => this.call(call.name, call.arguments, callOptions),
    }, options);
  }
}

function native(options: { native?: boolean }): boolean {
  if (options === null || typeof options !== "object") {
    throw new TypeError("Cannot render tools: pass { native: true } or nothing");
  }
  return options.native === true;
}

import type { CallOptions, CallSettings, ToolCallResult } from "./tool_call_types.ts";
import { callTool } from "./tool_call.ts";
import {
  type AnthropicTool,
  type McpToolDescription,
  type OpenAITool,
  toAnthropicTool,
  toMcpTool,
  toOpenAITool,
} from "./tool_formats.ts";
import type { MissingTool, RoutedTool, SourceKind } from "./tool_source.ts";
import type { PolicyGate, RunTool } from "./policy/policy_gate.ts";
import { policyGates } from "./policy/_gates.ts";
import { stoppedResult } from "./policy/policy_results.ts";
import type { PendingApproval } from "./policy_types.ts";
import { type BatchCall, callAll, type CallAllOptions } from "./policy/call_all.ts";

/** A name that more than one selected source offers, and which source won. */
export interface ShadowedTool {
  /** The exposed name. */
  name: string;
  /** The source whose tool is exposed. */
  winner: SourceKind;
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
}

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
  #ordered: readonly RoutedTool[];
  #settings: CallSettings;
  #names?: readonly string[];
  #openai?: OpenAITool[];
  #policy?: PolicyGate;

  /**
   * Builds a tool set. Hosts use `ToolRouter#expose` instead.
   *
   * @param init The resolved tools and reports.
   */
  constructor(init: ToolSetInit) {
    this.#ordered = [...init.tools].sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    this.#byName = new Map(this.#ordered.map((tool) => [tool.name, tool]));
    this.shadowed = init.shadowed;
    this.missing = init.missing;
    this.userId = init.userId;
    this.#settings = init.settings;
    this.#policy = policyGates.get(init);
  }

  /** The tools for the model in the OpenAI function format, sorted by name. */
  get tools(): OpenAITool[] {
    return this.#openai ??= this.#ordered.map(toOpenAITool);
  }

  /** The exposed names, sorted. */
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
    return this.#byName.has(name);
  }

  /**
   * Returns the source of an exposed name.
   *
   * @param name The tool name.
   * @returns The source, or `undefined` when the name is not exposed.
   */
  sourceOf(name: string): SourceKind | undefined {
    return this.#byName.get(name)?.source;
  }

  /**
   * The tools in the Anthropic Messages API format.
   *
   * @returns One entry per exposed tool.
   */
  toAnthropic(): AnthropicTool[] {
    return this.#ordered.map(toAnthropicTool);
  }

  /**
   * The tools in the MCP `tools/list` format.
   *
   * @returns One entry per exposed tool.
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
    const tool = this.#policy === undefined ? undefined : this.#byName.get(name);
    if (tool !== undefined) return this.#policy!.call(tool, args, options, this.#run);
    return callTool({
      tool: this.#byName.get(name),
      name,
      args,
      options,
      userId: this.userId,
      known: this.#known,
    }, this.#settings);
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
   * @param options Signal, deadline and progress listener of the call, and the `shownDigest` of
   *   what the person approved (when the host's UI keeps it: another digest runs nothing).
   * @returns The call's result.
   */
  approve(
    approvalOrId: PendingApproval | string,
    options: CallOptions & { shownDigest?: string } = {},
  ): Promise<ToolCallResult> {
    const { shownDigest, ...callOptions } = options;
    const answer = shownDigest === undefined ? { approved: true } : { approved: true, shownDigest };
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
   * calls (tools annotated `readOnlyHint: true`, such as `read_file`) run together, at most
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
        const tool = this.#byName.get(name);
        return tool === undefined || tool.annotations?.readOnlyHint === true;
      },
      call: (call) => this.call(call.name, call.arguments, callOptions),
    }, options);
  }

  #known = (): readonly string[] => this.names;

  #run: RunTool = (tool, args, options, decision) =>
    callTool({
      tool,
      name: tool.name,
      args,
      options,
      userId: this.userId,
      known: this.#known,
      decision,
    }, this.#settings);

  #settle(
    approvalOrId: PendingApproval | string,
    answer: { approved: boolean; reason?: string; shownDigest?: string },
    options: CallOptions,
  ): Promise<ToolCallResult> {
    if (this.#policy === undefined) {
      const known = approvalOrId !== null && typeof approvalOrId === "object";
      return stoppedResult(
        { name: known ? String(approvalOrId.tool) : "" },
        "permission_denied",
        "This tool set has no policy, so it has no approvals to settle; nothing ran",
        {
          settings: this.#settings,
          userId: this.userId,
          fields: {
            decision: "ask",
            rule: known ? String(approvalOrId.rule) : "",
            approval: "invalid",
          },
        },
      );
    }
    return this.#policy.settle(approvalOrId, answer, {
      lookup: (name) => this.#byName.get(name),
      options,
      run: this.#run,
    });
  }
}

function textOf(result: ToolCallResult): string {
  return result.text;
}

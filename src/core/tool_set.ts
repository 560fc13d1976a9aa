import { type CallOptions, type CallSettings, callTool, type ToolCallResult } from "./tool_call.ts";
import {
  type AnthropicTool,
  type McpToolDescription,
  type OpenAITool,
  toAnthropicTool,
  toMcpTool,
  toOpenAITool,
} from "./tool_formats.ts";
import type { MissingTool, RoutedTool, SourceKind } from "./tool_source.ts";

/** A name that more than one selected source offers, and which source won. */
export interface ShadowedTool {
  /** The exposed name. */
  name: string;
  /** The source whose tool is exposed. */
  winner: SourceKind;
  /** The sources whose tools of that name are hidden, highest first. */
  hidden: SourceKind[];
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
    return callTool({
      tool: this.#byName.get(name),
      name,
      args,
      options,
      userId: this.userId,
      known: () => this.names,
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
  async invoke(name: string, args?: unknown, options: CallOptions = {}): Promise<string> {
    return (await this.call(name, args, options)).text;
  }
}

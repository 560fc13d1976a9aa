import type { ToolCallResult } from "../tool_call_types.ts";
import { type RoutedTool, serverOf } from "../tool_source.ts";
import { isReadOnlyTool } from "../read_only_tool.ts";
import type { HookCall } from "./tool_hook.ts";

/**
 * One call as one hook step sees it. The arguments are copied only when the hook reads them: a
 * hook that changes its copy changes nothing that runs, and one that never looks costs nothing.
 */
export class SeenCall implements HookCall {
  readonly tool: string;
  readonly source: RoutedTool["source"];
  readonly userId?: string;
  readonly origin: string;
  readonly server?: string;
  readonly readOnly: boolean;
  readonly signal: AbortSignal;
  readonly rerun?: () => Promise<ToolCallResult>;
  // Private: a hook must never reach the arguments that run, only its copy.
  #given: Record<string, unknown>;
  #copy?: Record<string, unknown>;

  constructor(
    from: {
      tool: RoutedTool;
      userId?: string;
      signal: AbortSignal;
      rerun?: () => Promise<ToolCallResult>;
    },
    args: Record<string, unknown>,
  ) {
    this.tool = from.tool.name;
    this.source = from.tool.source;
    this.userId = from.userId;
    this.origin = from.tool.origin;
    this.server = serverOf(from.tool);
    this.readOnly = isReadOnlyTool(from.tool);
    this.signal = from.signal;
    if (from.rerun !== undefined) this.rerun = from.rerun;
    this.#given = args;
  }

  /** Whether the next hook may share this view: nobody read its copy, same arguments and rerun. */
  fits(args: Record<string, unknown>, rerun?: () => Promise<ToolCallResult>): boolean {
    return this.#copy === undefined && this.#given === args && this.rerun === rerun;
  }

  get args(): Record<string, unknown> {
    return this.#copy ??= JSON.parse(JSON.stringify(this.#given));
  }
}

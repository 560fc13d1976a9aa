import type { CallOptions, ToolCallResult } from "../tool_call_types.ts";
import type { RoutedTool } from "../tool_source.ts";
import type { PolicyEventFields } from "./policy_results.ts";

/** Runs a tool through the router's catch boundary (`callTool`), with what the policy decided. */
export type RunTool = (
  tool: RoutedTool,
  args: unknown,
  options: CallOptions,
  decision?: PolicyEventFields,
) => Promise<ToolCallResult>;

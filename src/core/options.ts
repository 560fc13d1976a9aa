/**
 * toolroute's finer settings and reports (`@toolroute/toolroute/options`): the types of the
 * router's and tool sets' less common options (argument limits, result budgets, deferred tools,
 * batches), of what a tool set reports beside its tools (shadowed and missing names), and of what
 * a running tool reports through its context (progress, log entries, elicitations). Types only,
 * for a host that names them in its own code; the root entry's options accept them as plain
 * objects.
 *
 * @example Name a setting's type
 * ```ts
 * import { ToolRouter } from "@toolroute/toolroute";
 * import type { ArgumentLimits } from "@toolroute/toolroute/options";
 * import { assertEquals } from "@std/assert";
 *
 * const limits: ArgumentLimits = { maxChars: 10_000, maxDepth: 16 };
 * const tools = await new ToolRouter({ argumentLimits: limits }).expose({});
 * assertEquals(tools.names, []);
 * ```
 *
 * @module
 */

export type { ArgumentLimits } from "./parse_arguments.ts";
export type { ResultBudget } from "./result_budget.ts";
export type { DeferSetting, ShadowedTool } from "./tool_set.ts";
export type { BatchCall, CallAllOptions } from "./policy/call_all.ts";
export type {
  MissingTool,
  ToolElicitation,
  ToolElicitationResult,
  ToolLogEntry,
  ToolProgress,
} from "./tool_source.ts";

import type { McpTool } from "../../mcp_sdk.ts";

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
 * @param tools The list.
 * @returns Its index.
 */
export function toolListIndex(tools: readonly McpTool[]): ToolListIndex {
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

/**
 * toolroute's source contract (`@toolroute/toolroute/unstable-source`), not yet stable: what the
 * router asks of the sources that fill its slots (`McpGateway` fills `gateway`, the `./deno`
 * entry's `builtinTools` fills `builtins`) and the routed tools they return. A host that only
 * routes its own functions, gateways and built-ins never needs it; it may change in a minor
 * version.
 *
 * @example A gateway slot of one's own
 * ```ts
 * import { ToolRouter } from "@toolroute/toolroute";
 * import type { GatewaySource } from "@toolroute/toolroute/unstable-source";
 * import { assertEquals } from "@std/assert";
 *
 * const gateway: GatewaySource = {
 *   serverIds: () => ["clock"],
 *   resolve: ({ serverIds }) =>
 *     Promise.resolve({
 *       user: [],
 *       global: serverIds.includes("clock")
 *         ? [{
 *           name: "clock_now",
 *           description: "The time",
 *           inputSchema: { type: "object" },
 *           source: "global_mcp",
 *           origin: "clock/now",
 *           execute: () => "12:00",
 *         }]
 *         : [],
 *       missing: [],
 *     }),
 * };
 * const toolSet = await new ToolRouter({ gateway }).expose({ mcpServers: ["clock"] });
 * assertEquals(await toolSet.invoke("clock_now", {}), "12:00");
 * ```
 *
 * @module
 */

export type {
  BuiltinRequest,
  BuiltinSource,
  GatewayRequest,
  GatewayResolution,
  GatewaySource,
  JsonObjectSchema,
  PolicySubjects,
  RoutedTool,
  SelectionKey,
  ShellCommand,
  SourceResolution,
} from "./tool_source.ts";

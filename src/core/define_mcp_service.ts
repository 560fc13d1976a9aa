import { toApiFunctionName } from "./api_function_name.ts";
import { zodTool } from "./define_tool.ts";
import type { InferArgs, InputSchema } from "./input_schema.ts";
import type { RoutedTool, ToolContext } from "./tool_source.ts";

/** One tool of a local MCP service. */
export interface McpServiceToolSpec<S extends InputSchema> {
  /** What the tool does, for the model. */
  description: string;
  /** A zod object schema of the arguments; unknown keys are rejected. */
  input: S;
  /** Runs the tool with parsed, typed arguments; returns as a function tool's `run` does. */
  run(args: InferArgs<S>, context: ToolContext): unknown;
}

/** What `defineMcpService` takes. */
export interface McpServiceSpec<T extends Record<string, InputSchema>> {
  /** The service name; exposed tool names are `toApiFunctionName(name, toolName)`. */
  name: string;
  /** What the service is for. */
  description?: string;
  /** The tools, by their MCP tool name. */
  tools: { [K in keyof T]: McpServiceToolSpec<T[K]> };
}

/** A local MCP service, ready to register with `new ToolRouter({ mcpServices })`. */
export interface McpService {
  /** The service name, as selections name it. */
  readonly name: string;
  /** What the service is for. */
  readonly description?: string;
  /** The exposed tools (source `local_mcp`). */
  readonly tools: readonly RoutedTool[];
}

/**
 * Defines a local MCP-style service whose tools run in-process by direct call.
 *
 * Each tool is exposed as `toApiFunctionName(serviceName, toolName)`. Throws a `TypeError` for a
 * missing name, an invalid tool, or two tools that would get the same exposed name.
 *
 * @example A weather service
 * ```ts
 * import { defineMcpService, ToolRouter } from "@toolroute/toolroute";
 * import { z } from "zod";
 * import { assertEquals } from "@std/assert";
 *
 * const weather = defineMcpService({
 *   name: "weather",
 *   tools: {
 *     forecast: {
 *       description: "Forecast for a city",
 *       input: z.object({ city: z.string() }),
 *       run: ({ city }) => `Sunny in ${city}`,
 *     },
 *   },
 * });
 * const tools = await new ToolRouter({ mcpServices: [weather] }).expose({ mcpServices: ["weather"] });
 * assertEquals(await tools.invoke("weather_forecast", { city: "Oslo" }), "Sunny in Oslo");
 * ```
 *
 * @param spec The service name, description and tools.
 * @returns The service.
 */
export function defineMcpService<T extends Record<string, InputSchema>>(
  spec: McpServiceSpec<T>,
): McpService {
  if (
    spec === null || typeof spec !== "object" || typeof spec.name !== "string" || spec.name === ""
  ) {
    throw new TypeError(
      'Cannot define MCP service: pass an object with a non-empty "name" and "tools"',
    );
  }
  const { name: service } = spec;
  if (spec.tools === null || typeof spec.tools !== "object") {
    throw new TypeError(
      `Cannot define MCP service "${service}": "tools" must be an object of tools`,
    );
  }
  const tools: RoutedTool[] = [];
  const byName = new Map<string, string>();
  for (const [toolName, tool] of Object.entries(spec.tools)) {
    const name = toApiFunctionName(service, toolName);
    const owner = `${service}/${toolName}`;
    const clash = byName.get(name);
    if (clash !== undefined) {
      throw new TypeError(
        `Cannot define MCP service "${service}": tools "${clash}" and "${toolName}" both become "${name}"; rename one`,
      );
    }
    byName.set(name, toolName);
    if (tool === null || typeof tool !== "object" || typeof tool.run !== "function") {
      throw new TypeError(
        `Cannot define tool "${owner}": pass an object with description, input and run`,
      );
    }
    tools.push(Object.freeze(zodTool({ name, source: "local_mcp", origin: owner }, tool)));
  }
  return Object.freeze({
    name: service,
    description: spec.description,
    tools: Object.freeze(tools),
  });
}

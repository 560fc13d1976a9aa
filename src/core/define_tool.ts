import { API_FUNCTION_NAME_PATTERN, toApiFunctionName } from "./api_function_name.ts";
import { compileZodInput } from "./parse_arguments.ts";
import type { InferArgs, InputSchema } from "./input_schema.ts";
import type { RoutedTool, ToolContext } from "./tool_source.ts";

/** What `defineTool` takes. */
export interface FunctionToolSpec<S extends InputSchema> {
  /** The name the model calls: `^[A-Za-z][A-Za-z0-9_-]{0,63}$`. */
  name: string;
  /** What the tool does, for the model. */
  description: string;
  /** A zod object schema of the arguments; unknown keys are rejected. */
  input: S;
  /**
   * Runs the tool with parsed, typed arguments. A string result is used as it is, `undefined`
   * becomes `""`, anything else is JSON-encoded. Throw to report a failure to the model.
   */
  run(args: InferArgs<S>, context: ToolContext): unknown;
  /**
   * The host's word that the tool changes nothing: `callAll` may run its calls alongside
   * others, and the retry and cache hooks may repeat or reuse them. Default: `false`.
   */
  readOnly?: boolean;
  /** Every call asks anew when a policy asks about it: no grant ever covers it. */
  neverSticky?: boolean;
}

/** A function tool, ready to register with `new ToolRouter({ functions })`. */
export interface FunctionTool extends RoutedTool {
  /** Always `"function"`. */
  readonly source: "function";
}

/**
 * Defines a function tool with a zod-typed input.
 *
 * Throws a `TypeError` for an invalid name, a missing description, a non-object schema or a
 * missing `run`.
 *
 * @example A tool that adds two numbers
 * ```ts
 * import { defineTool, ToolRouter } from "@toolroute/toolroute";
 * import { z } from "zod";
 * import { assertEquals } from "@std/assert";
 *
 * const add = defineTool({
 *   name: "add",
 *   description: "Adds two numbers",
 *   input: z.object({ a: z.number(), b: z.number() }),
 *   run: ({ a, b }) => ({ sum: a + b }),
 * });
 * const tools = await new ToolRouter({ functions: [add] }).expose({ functions: ["add"] });
 * assertEquals(await tools.invoke("add", '{"a":1,"b":2}'), '{"sum":3}');
 * ```
 *
 * @param spec The name, description, input schema and handler.
 * @returns The function tool.
 */
export function defineTool<S extends InputSchema>(spec: FunctionToolSpec<S>): FunctionTool {
  if (spec === null || typeof spec !== "object") {
    throw new TypeError("Cannot define tool: pass an object with name, description, input and run");
  }
  const { name } = spec;
  if (typeof name !== "string" || !API_FUNCTION_NAME_PATTERN.test(name)) {
    const hint = typeof name === "string"
      ? `; "${toApiFunctionName("tool", name)}" would be valid`
      : "";
    throw new TypeError(
      `Cannot define tool ${
        JSON.stringify(name)
      }: the name must match ${API_FUNCTION_NAME_PATTERN}${hint}`,
    );
  }
  return Object.freeze({
    ...zodTool({ name, source: "function", origin: name }, spec),
    ...(spec.readOnly === true ? { readOnly: true, annotations: { readOnlyHint: true } } : {}),
    ...(spec.neverSticky === true ? { neverSticky: true } : {}),
  }) as FunctionTool;
}

/**
 * The tool of `defineTool` or of a `defineMcpService` tool: its description and `run` checked,
 * its zod input compiled, and its arguments parsed by it before `run`.
 *
 * @param tool The exposed name, the source and the origin (the name in messages).
 * @param spec The description, input schema and handler as the host gave them.
 */
export function zodTool(
  tool: { name: string; source: "function" | "local_mcp"; origin: string },
  spec: { description: unknown; input: unknown; run: unknown },
): RoutedTool {
  const { description, run } = spec;
  if (typeof description !== "string") {
    throw new TypeError(`Cannot define tool "${tool.origin}": "description" must be a string`);
  }
  if (typeof run !== "function") {
    throw new TypeError(`Cannot define tool "${tool.origin}": "run" must be a function`);
  }
  const input = compileZodInput(spec.input, tool.origin);
  return {
    ...tool,
    description,
    inputSchema: input.jsonSchema,
    execute: (args: Record<string, unknown>, context: ToolContext) =>
      run(input.parse(args, tool.name), context),
  };
}

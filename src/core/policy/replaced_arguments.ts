import { type ArgumentLimits, parseArguments } from "../parse_arguments.ts";
import { type ErrorCode, isToolError } from "../tool_error.ts";
import type { RoutedTool } from "../tool_source.ts";

const JSON_TYPES: Record<string, (value: unknown) => boolean> = {
  string: (value) => typeof value === "string",
  number: (value) => typeof value === "number",
  integer: (value) => Number.isInteger(value),
  boolean: (value) => typeof value === "boolean",
  array: (value) => Array.isArray(value),
  object: (value) => value !== null && typeof value === "object" && !Array.isArray(value),
  null: (value) => value === null,
};

/**
 * Checks arguments that replace a call's (a person's edit in an approval, a hook's rewrite)
 * before the policy reads them again: a plain JSON object within the argument limits, with
 * every property the tool's schema requires, none it closes out (`additionalProperties: false`)
 * and each top-level property of the type and among the values (`enum`, `const`) it declares.
 * The tool still checks the rest when it runs (a function tool's zod schema, an MCP server's own
 * validation), before doing anything.
 *
 * @param options The router's argument limits, and who replaced them (for the message).
 * @returns A private copy of the arguments, or why they do not fit (`invalid_arguments`).
 */
export function replacedArguments(
  tool: RoutedTool,
  args: unknown,
  options: { limits?: ArgumentLimits; by: string },
): { args: Record<string, unknown> } | { refused: { code: ErrorCode; text: string } } {
  const refused = (why: string) => ({
    refused: {
      code: "invalid_arguments" as const,
      text: `The arguments ${options.by} gave for "${tool.name}" ${why}; the call did not run`,
    },
  });
  if (args === null || typeof args !== "object" || Array.isArray(args)) {
    return refused("are not an object");
  }
  let parsed: Record<string, unknown>;
  try {
    parsed = parseArguments(args, options.limits);
  } catch (error) {
    if (!isToolError(error)) throw error;
    return { refused: { code: error.code, text: error.message } };
  }
  const copy = JSON.parse(JSON.stringify(parsed)) as Record<string, unknown>;
  const problems = schemaProblems(tool.inputSchema, copy);
  if (problems.length > 0) return refused(`do not fit its schema (${problems.join("; ")})`);
  return { args: copy };
}

function schemaProblems(
  schema: RoutedTool["inputSchema"],
  args: Record<string, unknown>,
): string[] {
  const problems: string[] = [];
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  for (const key of Array.isArray(schema.required) ? schema.required : []) {
    if (!Object.hasOwn(args, key)) problems.push(`"${key}" is required`);
  }
  for (const [key, value] of Object.entries(args)) {
    const property = Object.hasOwn(properties, key) ? properties[key] : undefined;
    if (property === undefined || property === null || typeof property !== "object") {
      if (schema.additionalProperties === false) problems.push(`"${key}" is not a parameter`);
      continue;
    }
    const types = typeof property.type === "string"
      ? [property.type]
      : Array.isArray(property.type)
      ? property.type.filter((type): type is string => typeof type === "string")
      : [];
    // Own names only: an inherited member (`hasOwnProperty`, `valueOf`) is no JSON type.
    const known = types.filter((type) => Object.hasOwn(JSON_TYPES, type));
    if (known.length > 0 && !known.some((type) => JSON_TYPES[type](value))) {
      problems.push(`"${key}" must be ${known.join(" or ")}`);
    }
    if (Array.isArray(property.enum) && !property.enum.some((item) => sameJson(item, value))) {
      problems.push(`"${key}" must be one of ${JSON.stringify(property.enum)}`);
    }
    if (Object.hasOwn(property, "const") && !sameJson(property.const, value)) {
      problems.push(`"${key}" must be ${JSON.stringify(property.const)}`);
    }
  }
  return problems;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

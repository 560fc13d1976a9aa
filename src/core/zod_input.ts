import * as z from "zod";
import type { JsonObjectSchema } from "./tool_source.ts";
import { ToolError } from "./tool_error.ts";

/** A zod object schema, as tools take for their input. */
// deno-lint-ignore no-explicit-any
export type ZodObjectSchema = z.ZodObject<any>;

/** A tool input schema compiled once: its JSON Schema, and the strict parse of arguments. */
export interface ZodInput {
  /** The JSON Schema the model sees. */
  readonly jsonSchema: JsonObjectSchema;
  /** Parses arguments (unknown keys are errors) or throws `invalid_arguments` naming each problem. */
  parse(args: Record<string, unknown>, toolName: string): z.output<ZodObjectSchema>;
}

/**
 * Compiles a zod object schema for a tool: strict at the top level, with its JSON Schema.
 *
 * Throws a `TypeError` when the schema is not a zod object schema.
 *
 * @param owner The tool's name, for the error message.
 */
export function compileZodInput(input: unknown, owner: string): ZodInput {
  if (!(input instanceof z.ZodObject)) {
    throw new TypeError(
      `Cannot define tool "${owner}": "input" must be a zod object schema, such as z.object({})`,
    );
  }
  const strict: ZodObjectSchema = input.def.catchall === undefined ? input.strict() : input;
  const { $schema: _ignored, ...jsonSchema } = z.toJSONSchema(strict, {
    io: "input",
    unrepresentable: "any",
  }) as Record<string, unknown>;
  const schema = jsonSchema as JsonObjectSchema;
  return {
    jsonSchema: schema,
    parse(args, toolName) {
      const result = strict.safeParse(args);
      if (result.success) return result.data;
      throw new ToolError(
        "invalid_arguments",
        formatIssues(result.error.issues, { toolName, schema }),
      );
    },
  };
}

/**
 * Formats zod issues as one message a model can act on: each problem with its path, then the
 * parameters a valid call takes.
 *
 * @param tool The tool's name and its JSON Schema, for the hint.
 */
export function formatIssues(
  issues: readonly z.core.$ZodIssue[],
  tool: { toolName: string; schema: JsonObjectSchema },
): string {
  const { toolName, schema } = tool;
  const shown = issues.slice(0, 5).map((issue) => {
    const path = issue.path.length === 0 ? "(top level)" : `"${issue.path.map(String).join(".")}"`;
    return `${path}: ${issue.message}`;
  });
  if (issues.length > shown.length) shown.push(`and ${issues.length - shown.length} more`);
  return `Invalid arguments for tool "${toolName}": ${shown.join("; ")}. ${
    describeParameters(schema)
  }`;
}

/**
 * Describes the parameters of a JSON Schema object in one sentence, for error messages.
 *
 * @param schema The tool's JSON Schema.
 * @returns A sentence such as `Expected parameters: city (string, required), days (integer)`.
 */
export function describeParameters(schema: JsonObjectSchema): string {
  const properties = Object.entries(schema.properties ?? {});
  if (properties.length === 0) return "This tool takes no parameters: send {}";
  const required = new Set(schema.required ?? []);
  const parts = properties.map(([name, property]) => {
    const type = typeName(property);
    return `${name} (${type}${required.has(name) ? ", required" : ""})`;
  });
  return `Expected parameters: ${parts.join(", ")}`;
}

function typeName(property: unknown): string {
  if (property === null || typeof property !== "object") return "any";
  const p = property as Record<string, unknown>;
  if (Array.isArray(p.enum)) return p.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (typeof p.type === "string") return p.type;
  if (Array.isArray(p.type)) return p.type.join(" | ");
  if (Array.isArray(p.anyOf)) return p.anyOf.map(typeName).join(" | ");
  return "any";
}

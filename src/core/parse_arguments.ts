import * as z from "zod";
import type { JsonObjectSchema } from "./tool_source.ts";
import { ToolError } from "./tool_error.ts";

/** Limits on the arguments a model may send in one call. */
export interface ArgumentLimits {
  /** Most characters of argument JSON text. Default: 1 000 000. */
  maxChars?: number;
  /** Deepest nesting of objects and arrays. Default: 64. */
  maxDepth?: number;
}

const DEFAULT_MAX_CHARS = 1_000_000;
const DEFAULT_MAX_DEPTH = 64;
const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);

/**
 * Turns a model's arguments (JSON text or an already parsed value) into a plain object.
 *
 * Empty text and `undefined` mean no arguments (`{}`). Throws a `ToolError` with code
 * `invalid_arguments` for text that is not JSON, JSON that is not an object, text over the size
 * limit (for an object the host passes: its JSON length, counted by a walk that stops at the
 * limit), nesting deeper than the limit, the keys `__proto__`, `constructor` and `prototype`, and
 * numbers that are not finite (`1e309`).
 *
 * @param args The arguments as the model sent them.
 * @param limits Size and depth limits.
 * @returns The arguments as a plain object.
 */
export function parseArguments(
  args: unknown,
  limits: ArgumentLimits = {},
): Record<string, unknown> {
  const maxChars = limits.maxChars ?? DEFAULT_MAX_CHARS;
  const maxDepth = limits.maxDepth ?? DEFAULT_MAX_DEPTH;
  let value = args;
  if (value === undefined) return {};
  if (typeof value === "string") {
    if (value.length > maxChars) {
      throw invalid(
        `The arguments are ${value.length} characters long, over the limit of ${maxChars}; send a smaller JSON object`,
      );
    }
    if (value.trim() === "") return {};
    try {
      value = JSON.parse(value);
    } catch (error) {
      const detail = error instanceof Error ? `: ${error.message}` : "";
      throw invalid(
        `The arguments are not valid JSON${detail}; send a JSON object such as {"key": "value"}`,
      );
    }
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw invalid(
      `The arguments must be a JSON object, not ${
        describe(value)
      }; send an object such as {"key": "value"}`,
    );
  }
  // An object the host parsed itself gets the same size limit as text: its JSON length is
  // counted during the walk, which stops as soon as the limit is passed.
  const size = typeof args === "string" ? undefined : { chars: 0, max: maxChars };
  checkValue(value, "", 1, maxDepth, size);
  return value as Record<string, unknown>;
}

interface SizeBudget {
  chars: number;
  readonly max: number;
}

function count(size: SizeBudget | undefined, chars: number): void {
  if (size === undefined) return;
  size.chars += chars;
  if (size.chars > size.max) {
    throw invalid(
      `The arguments are at least ${size.chars} characters long as JSON, over the limit of ${size.max}; send a smaller JSON object`,
    );
  }
}

function checkValue(
  value: unknown,
  path: string,
  depth: number,
  maxDepth: number,
  size?: SizeBudget,
): void {
  if (typeof value === "number") {
    if (!Number.isFinite(value)) {
      throw invalid(`The number at ${where(path)} is out of range; use a finite number`);
    }
    count(size, String(value).length + 1);
    return;
  }
  if (value === null || typeof value !== "object") {
    if (typeof value === "bigint" || typeof value === "function" || typeof value === "symbol") {
      throw invalid(`The value at ${where(path)} is not JSON (${typeof value})`);
    }
    count(size, typeof value === "string" ? value.length + 3 : 6);
    return;
  }
  count(size, 2);
  if (depth > maxDepth) {
    throw invalid(
      `The arguments are nested deeper than ${maxDepth} levels; send a flatter JSON object`,
    );
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      checkValue(value[i], `${path}[${i}]`, depth + 1, maxDepth, size);
    }
    return;
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (FORBIDDEN_KEYS.has(key)) {
      throw invalid(`The key "${key}" at ${where(path)} is not allowed; rename or remove it`);
    }
    count(size, key.length + 3);
    checkValue(
      (value as Record<string, unknown>)[key],
      path ? `${path}.${key}` : key,
      depth + 1,
      maxDepth,
      size,
    );
  }
  if (Object.hasOwn(value, "__proto__")) {
    throw invalid(`The key "__proto__" at ${where(path)} is not allowed; rename or remove it`);
  }
}

function where(path: string): string {
  return path === "" ? "the top level" : `"${path}"`;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}

function invalid(message: string): ToolError {
  return new ToolError("invalid_arguments", message);
}

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

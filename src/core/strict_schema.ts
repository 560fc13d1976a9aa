import type { JsonObjectSchema } from "./tool_source.ts";

/** Keywords OpenAI's strict mode (Structured Outputs) accepts in a schema. */
const ALLOWED = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "anyOf",
  "enum",
  "const",
  "description",
  "title",
  "$defs",
  "definitions",
  "$ref",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
]);

/** Most nesting levels strict mode allows. */
const MAX_DEPTH = 10;

/**
 * Whether a tool's parameter schema satisfies OpenAI strict mode's rules, so the tool can be sent
 * with `strict: true`: the root is an object; every object lists all its properties in
 * `required` and has `additionalProperties: false`; only supported keywords appear (no `allOf`,
 * `oneOf`, `not`, `default`, `patternProperties`, …); at most 10 levels deep.
 *
 * @param schema The tool's input schema.
 * @returns `true` when `strict: true` may be set.
 */
export function isOpenAIStrictSchema(schema: JsonObjectSchema): boolean {
  if (schema === null || typeof schema !== "object" || schema.type !== "object") return false;
  const { $schema: _ignored, ...root } = schema;
  return strictNode(root, 0);
}

function strictNode(node: unknown, depth: number): boolean {
  if (depth > MAX_DEPTH || node === null || typeof node !== "object" || Array.isArray(node)) {
    return false;
  }
  const schema = node as Record<string, unknown>;
  for (const key of Object.keys(schema)) if (!ALLOWED.has(key)) return false;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes("object") || schema.properties !== undefined) {
    if (schema.additionalProperties !== false) return false;
    const properties = (schema.properties ?? {}) as Record<string, unknown>;
    if (properties === null || typeof properties !== "object") return false;
    const required = new Set(Array.isArray(schema.required) ? schema.required : []);
    for (const [name, property] of Object.entries(properties)) {
      if (!required.has(name) || !strictNode(property, depth + 1)) return false;
    }
  } else if (schema.additionalProperties !== undefined || schema.required !== undefined) {
    return false;
  }
  if (schema.items !== undefined && !strictNode(schema.items, depth + 1)) return false;
  if (schema.anyOf !== undefined) {
    if (!Array.isArray(schema.anyOf)) return false;
    if (!schema.anyOf.every((member) => strictNode(member, depth + 1))) return false;
  }
  for (const defs of [schema.$defs, schema.definitions]) {
    if (defs === undefined) continue;
    if (defs === null || typeof defs !== "object") return false;
    if (!Object.values(defs).every((def) => strictNode(def, depth + 1))) return false;
  }
  return true;
}

/**
 * An upstream tool's input schema, kept as it is, except that a schema taking no parameters
 * (no `properties`, no other way to name keys) says so with `properties: {}` and
 * `additionalProperties: false`: a tool without parameters takes no keys, and strict-mode clients
 * (`@openai/agents`) need it said.
 *
 * @param schema The schema as the server listed it.
 */
export function upstreamInputSchema(schema: unknown): JsonObjectSchema {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) {
    return { type: "object", properties: {}, additionalProperties: false };
  }
  const s = schema as JsonObjectSchema;
  const open = ["additionalProperties", "patternProperties", "anyOf", "oneOf", "allOf", "$ref"]
    .some((key) => s[key] !== undefined) ||
    (s.properties !== undefined && Object.keys(s.properties).length > 0);
  if (open || s.type !== "object") return s;
  return { ...s, properties: {}, additionalProperties: false };
}

/**
 * What is wrong with a `tools/call` result, in a few words, or `undefined` when it has the shape
 * the MCP schema gives it: an object whose `content` (when present) is a list of known blocks,
 * each with its fields' types; `structuredContent` an object and `isError` a boolean when
 * present. Checked by hand (a few property reads per block), in place of the SDK client's schema,
 * so that every result a server sends is checked, whichever way the call went, before any of it
 * reaches a model or a serving client.
 *
 * @param value The result as received.
 * @returns The problem, such as `content[1] is an "image" block without a string "data"`.
 */
export function toolResultProblem(value: unknown): string | undefined {
  if (!isObject(value)) return "it is not an object";
  const result = value as Record<string, unknown>;
  const content = result.content;
  if (content !== undefined) {
    if (!Array.isArray(content)) return '"content" is not a list';
    for (let i = 0; i < content.length; i++) {
      const problem = blockProblem(content[i]);
      if (problem !== undefined) return `content[${i}] ${problem}`;
    }
  }
  if (result.structuredContent !== undefined && !isObject(result.structuredContent)) {
    return '"structuredContent" is not an object';
  }
  if (result.isError !== undefined && typeof result.isError !== "boolean") {
    return '"isError" is not true or false';
  }
  return undefined;
}

// The fields each kind of block must have as strings (optional ones are not checked).
const REQUIRED: Record<string, readonly string[]> = {
  text: ["text"],
  image: ["data", "mimeType"],
  audio: ["data", "mimeType"],
  resource_link: ["uri", "name"],
  resource: [],
};

function blockProblem(block: unknown): string | undefined {
  if (!isObject(block)) return "is not an object";
  const { type } = block as Record<string, unknown>;
  const required = typeof type === "string" && Object.hasOwn(REQUIRED, type)
    ? REQUIRED[type]
    : undefined;
  if (required === undefined) {
    // Quoted whole or not at all: a cut could keep part of a credential that redaction (which
    // looks for whole ones) would then miss.
    const quoted = JSON.stringify(type) ?? "undefined";
    return `has an unknown type ${quoted.length <= 40 ? quoted : `(${quoted.length} characters)`}`;
  }
  for (const field of required) {
    if (typeof (block as Record<string, unknown>)[field] !== "string") {
      return `is a "${type}" block without a string "${field}"`;
    }
  }
  if (type === "resource") {
    const resource = (block as { resource?: unknown }).resource;
    if (!isObject(resource)) return 'is a "resource" block without a "resource" object';
    const { uri, text, blob } = resource as Record<string, unknown>;
    if (typeof uri !== "string") return 'is a "resource" block whose resource has no string "uri"';
    if (typeof text !== "string" && typeof blob !== "string") {
      return 'is a "resource" block whose resource has neither a string "text" nor "blob"';
    }
  }
  return undefined;
}

function isObject(value: unknown): boolean {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

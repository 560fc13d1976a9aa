/** The fields of a tool definition that a pin covers, in the order they are reported. */
export const PINNED_FIELDS = [
  "name",
  "title",
  "description",
  "inputSchema",
  "outputSchema",
  "annotations",
] as const;

/** One field a pin covers. */
export type PinnedField = typeof PINNED_FIELDS[number];

/** The hash of a whole definition and of each pinned field. */
export interface ToolDefinitionHash {
  /** `sha256-` and the hex SHA-256 of the canonical JSON of the pinned fields. */
  hash: string;
  /** The hash of each field (absent fields hash as `null`), so drift can name what changed. */
  fields: Record<PinnedField, string>;
}

const cache = new WeakMap<object, Promise<ToolDefinitionHash>>();
const encoder = new TextEncoder();

/**
 * Hashes the pinned fields of an MCP tool definition over canonical JSON (object keys sorted,
 * absent and `undefined` the same), so key order and transport details never count as drift.
 * The result is cached per definition object: a cached tool list is hashed once.
 *
 * @param tool The definition as `tools/list` returned it.
 * @returns The whole hash and the per-field hashes.
 */
export function hashToolDefinition(
  tool: Readonly<Record<string, unknown>>,
): Promise<ToolDefinitionHash> {
  let hashed = cache.get(tool);
  if (hashed === undefined) {
    hashed = compute(tool);
    cache.set(tool, hashed);
  }
  return hashed;
}

async function compute(tool: Readonly<Record<string, unknown>>): Promise<ToolDefinitionHash> {
  const fields = {} as Record<PinnedField, string>;
  const whole: Record<string, unknown> = {};
  await Promise.all(PINNED_FIELDS.map(async (field) => {
    const text = canonicalJson(tool[field] ?? null);
    whole[field] = tool[field] ?? null;
    fields[field] = await sha256(text);
  }));
  return { hash: await sha256(canonicalJson(whole)), fields };
}

/**
 * JSON with object keys sorted at every depth and `undefined` members left out.
 *
 * @param value Plain JSON data.
 * @returns The canonical text.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) {
    return `[${value.map((item) => item === undefined ? "null" : canonicalJson(item)).join(",")}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).filter((key) => record[key] !== undefined).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(",")}}`;
}

/**
 * The hex SHA-256 of a text, prefixed `sha256-`.
 *
 * @param text The text (UTF-8).
 * @returns The digest.
 */
export async function sha256(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
  let hex = "";
  for (const byte of digest) hex += byte.toString(16).padStart(2, "0");
  return `sha256-${hex}`;
}

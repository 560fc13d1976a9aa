import { canonicalJson, sha256 } from "../../../canonical_json.ts";

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
const settled = new WeakMap<object, ToolDefinitionHash>();

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
    hashed.then((done) => settled.set(tool, done), () => cache.delete(tool));
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
 * The hash of a definition already hashed, without waiting: lets a check of a shared definition
 * (the same object for every user of a server) skip the asynchronous step.
 *
 * @returns Its hash, or `undefined` when it has not been hashed yet.
 */
export function knownToolDefinitionHash(
  tool: Readonly<Record<string, unknown>>,
): ToolDefinitionHash | undefined {
  return settled.get(tool);
}

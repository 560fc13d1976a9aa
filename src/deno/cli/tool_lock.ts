import { z } from "zod";
import { canonicalJson } from "../../core/canonical_json.ts";
import type { PinStore, ToolPin } from "../../core/mcp/gateway/pin_store.ts";
import { hashToolDefinition } from "../../core/mcp/gateway/pinning/tool_definition_hash.ts";
import { MemoryStore } from "../../core/store/memory_store.ts";
import { formatIssues } from "../mcp/mcp_config_schema.ts";
import { besideConfig, type ToolrouteConfig } from "./toolroute_config.ts";

/** The lock file's name, beside the config (like `deno.lock`). */
export const LOCK_FILE = "toolroute.lock";

// A record that keeps every key: zod's own records skip "__proto__" without a word, and a server
// may name a tool so (a lock without it would withhold the tool). Read through a Map, whose
// issues carry the key as their path; `Object.fromEntries` keeps the key as data.
function keptRecord<T extends z.ZodType>(value: T) {
  return z.preprocess(
    (input) =>
      input !== null && typeof input === "object" && !Array.isArray(input)
        ? new Map(Object.entries(input))
        : input,
    z.map(z.string(), value, { error: "expected an object" }),
  ).transform((map) => Object.fromEntries(map) as Record<string, z.output<T>>);
}

// One locked tool: `hash` (`sha256-…` over the pinned fields, see `hashToolDefinition`) and the
// pinned fields a reviewer approved (`definition`: name, title, description, schemas, annotations).
const lockedTool = z.object({ hash: z.string(), definition: keptRecord(z.unknown()) });
const toolsOf = keptRecord(lockedTool);
// Global servers: server id → tool name → locked tool; users' own: user id → server id → ….
const toolLockSchema = z.object({
  version: z.literal(1),
  servers: keptRecord(toolsOf).default({}),
  users: keptRecord(keptRecord(toolsOf)).default({}),
});

/** One locked tool: its hash and the definition a reviewer approved. */
export type LockedTool = z.infer<typeof lockedTool>;

/** The lock file: every remote tool's pinned definition, by server (and user). */
export type ToolLock = z.infer<typeof toolLockSchema>;

/** Where a config's lock file is (see `besideConfig`). */
export function lockPath(config: ToolrouteConfig): string | undefined {
  return besideConfig(config, LOCK_FILE);
}

/**
 * Reads a lock file and checks it: each entry's hash is recomputed from its readable definition.
 * Throws a `TypeError` naming the file (and the entry) when it is not a valid lock or an entry's
 * definition does not match its hash.
 *
 * @returns The lock, or `undefined` when the file does not exist.
 */
export async function readToolLock(path: string): Promise<ToolLock | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
  const bad = (why: string) =>
    new TypeError(
      `Cannot read the lock file "${path}": ${why}; run "toolroute lock" to rewrite it`,
    );
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw bad((error as Error).message);
  }
  const checked = toolLockSchema.safeParse(data);
  if (!checked.success) throw bad(formatIssues(checked.error.issues).join("; "));
  const lock = checked.data;
  // The readable definition is what a reviewer approves; the hash is what serve pins. A lock
  // whose two disagree would show one tool and serve another: refused, entry by entry.
  for (const [where, tool] of lockedTools(lock)) {
    const { hash } = await hashToolDefinition(tool.definition);
    if (hash !== tool.hash) {
      throw new TypeError(
        `Cannot read the lock file "${path}": the entry ${
          where.slice(1).join("/")
        } does not match its own hash (its "definition" hashes to ${hash}, its "hash" says ${tool.hash}), so the definition shown for review is not the one it pins; the file was edited by hand or tampered with: check the entry, then run "toolroute lock" to rewrite it from the servers`,
      );
    }
  }
  return lock;
}

/**
 * Every tool of a lock with where it is: `["global", server, tool]` or
 * `["user", user, server, tool]` (its pin's key after `"pins"`).
 */
export function lockedTools(lock: ToolLock): [string[], LockedTool][] {
  const out: [string[], LockedTool][] = [];
  for (const [id, tools] of Object.entries(lock.servers)) {
    for (const [name, tool] of Object.entries(tools)) out.push([["global", id, name], tool]);
  }
  for (const [user, servers] of Object.entries(lock.users)) {
    for (const [id, tools] of Object.entries(servers)) {
      for (const [name, tool] of Object.entries(tools)) out.push([["user", user, id, name], tool]);
    }
  }
  return out;
}

/** A pin store holding exactly the lock's pins (for `serve` and `lock --check`). */
export async function storeFromLock(lock: ToolLock): Promise<MemoryStore> {
  const store = new MemoryStore();
  for (const [where, tool] of lockedTools(lock)) {
    const { fields } = await hashToolDefinition(tool.definition);
    const pin: ToolPin = { hash: tool.hash, fields, definition: tool.definition };
    await store.set(["pins", ...where], pin);
  }
  return store;
}

/** The lock of every pin in a store. */
export async function lockFromStore(store: PinStore): Promise<ToolLock> {
  const lock: ToolLock = { version: 1, servers: {}, users: {} };
  for (const { key, value } of await store.list<ToolPin>(["pins"])) {
    const tool = { hash: value.hash, definition: value.definition ?? {} };
    if (key[1] === "global" && key.length === 4) {
      define(own(lock.servers, key[2]), key[3], tool);
    } else if (key[1] === "user" && key.length === 5) {
      define(own(own(lock.users, key[2]), key[3]), key[4], tool);
    }
  }
  return lock;
}

// An id is a key of the operator's config: "toString" must name a server, not reach
// Object.prototype's member (whose tools would be written onto the shared function).
function own<T>(map: Record<string, Record<string, T>>, key: string): Record<string, T> {
  if (!Object.hasOwn(map, key)) define(map, key, {});
  return map[key];
}

// A tool named "__proto__" is set as data, not as the record's prototype.
function define<T>(map: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(map, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * The lock file's text: keys sorted at every depth, two-space indent, so diffs show exactly
 * which definitions changed.
 *
 * @returns The text, ending with a newline.
 */
export function formatToolLock(lock: ToolLock): string {
  return JSON.stringify(JSON.parse(canonicalJson(lock)), null, 2) + "\n";
}

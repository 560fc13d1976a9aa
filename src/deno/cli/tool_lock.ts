import { canonicalJson } from "../../core/canonical_json.ts";
import type { PinStore, ToolPin } from "../../core/mcp/gateway/pin_store.ts";
import { hashToolDefinition } from "../../core/mcp/gateway/pinning/tool_definition_hash.ts";
import { MemoryStore } from "../../core/store/memory_store.ts";
import { besideConfig, type ToolrouteConfig } from "./toolroute_config.ts";

/** The lock file's name, beside the config (like `deno.lock`). */
export const LOCK_FILE = "toolroute.lock";

/** One locked tool: its hash and the definition a reviewer approved. */
export interface LockedTool {
  /** `sha256-…` over the pinned fields (see `hashToolDefinition`). */
  hash: string;
  /** The pinned fields (name, title, description, schemas, annotations). */
  definition: Record<string, unknown>;
}

/** The lock file: every remote tool's pinned definition, by server (and user). */
export interface ToolLock {
  version: 1;
  /** Global servers: server id → tool name → locked tool. */
  servers: Record<string, Record<string, LockedTool>>;
  /** Users' own servers: user id → server id → tool name → locked tool. */
  users: Record<string, Record<string, Record<string, LockedTool>>>;
}

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
  let lock: ToolLock;
  try {
    lock = JSON.parse(text);
  } catch (error) {
    throw new TypeError(`Cannot read the lock file "${path}": ${(error as Error).message}`);
  }
  const bad = (why: string) =>
    new TypeError(
      `Cannot read the lock file "${path}": ${why}; run "toolroute lock" to rewrite it`,
    );
  if (lock === null || typeof lock !== "object" || lock.version !== 1) {
    throw bad('"version" must be 1');
  }
  const entries: [string, LockedTool][] = [];
  const check = (tools: unknown, where: string) => {
    if (tools === null || typeof tools !== "object") throw bad(`${where} is not an object`);
    for (const [name, tool] of Object.entries(tools as Record<string, LockedTool>)) {
      if (
        typeof tool?.hash !== "string" || tool.definition === null ||
        typeof tool.definition !== "object" || Array.isArray(tool.definition)
      ) {
        throw bad(`${where}/${name} needs "hash" and "definition"`);
      }
      entries.push([`${where}/${name}`, tool]);
    }
  };
  for (const [id, tools] of Object.entries(lock.servers ?? {})) check(tools, id);
  for (const [user, servers] of Object.entries(lock.users ?? {})) {
    if (servers === null || typeof servers !== "object") throw bad(`${user} is not an object`);
    for (const [id, tools] of Object.entries(servers)) check(tools, `${user}/${id}`);
  }
  // The readable definition is what a reviewer approves; the hash is what serve pins. A lock
  // whose two disagree would show one tool and serve another: refused, entry by entry.
  for (const [where, tool] of entries) {
    const { hash } = await hashToolDefinition(tool.definition);
    if (hash !== tool.hash) {
      throw new TypeError(
        `Cannot read the lock file "${path}": the entry ${where} does not match its own hash (its "definition" hashes to ${hash}, its "hash" says ${tool.hash}), so the definition shown for review is not the one it pins; the file was edited by hand or tampered with: check the entry, then run "toolroute lock" to rewrite it from the servers`,
      );
    }
  }
  return { version: 1, servers: lock.servers ?? {}, users: lock.users ?? {} };
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
      (lock.servers[key[2]] ??= {})[key[3]] = tool;
    } else if (key[1] === "user" && key.length === 5) {
      ((lock.users[key[2]] ??= {})[key[3]] ??= {})[key[4]] = tool;
    }
  }
  return lock;
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

import type { ToolNamesStore } from "../../core/mcp/gateway/tools/known_tool_names.ts";
import { canonicalJson } from "../../core/canonical_json.ts";

/** The file beside the config that keeps the servers' last known tool lists (without a store). */
export const TOOL_NAMES_FILE = "toolroute.names.json";

/** The file's contents: server id → tool names, and per user the same. */
interface Lists {
  servers: Map<string, unknown>;
  users: Map<string, Map<string, unknown>>;
}

/**
 * The gateway's `toolNames` store in one JSON file (`toolroute.names.json` beside the config),
 * for `serve`, `tools` and `call` without `--store`: each server's last known tool list, so a
 * restart with a server down renames no other server's tool.
 *
 * `{ "version": 1, "servers": { id: [names] }, "users": { userId: { id: [names] } } }`. The file
 * is read on first use; one that cannot be read or parsed makes every read fail (the gateway
 * reports it per server and names follow the servers that answer), and the next change rewrites
 * it. Each change rewrites the whole file (in order; the lists are small).
 *
 * Requires `allow-read` and `allow-write` permission for the file.
 *
 * @tags allow-read, allow-write
 */
export class ToolNamesFile implements ToolNamesStore {
  #path: string;
  #lists?: Promise<Lists>;
  #writes: Promise<void> = Promise.resolve();

  /**
   * @param path The file (need not exist).
   */
  constructor(path: string) {
    this.#path = path;
  }

  /**
   * The list kept under a key (`["tool-names", "global", id]` or
   * `["tool-names", "user", userId, id]`), as the file has it (the gateway checks it).
   */
  async get<T = unknown>(key: readonly string[]): Promise<T | undefined> {
    const lists = await this.#read();
    const [, tier, a, b] = key;
    const value = tier === "global" && key.length === 3
      ? lists.servers.get(a)
      : tier === "user" && key.length === 4
      ? lists.users.get(a)?.get(b)
      : undefined;
    return value as T | undefined;
  }

  /** Keeps a list and rewrites the file. */
  set(key: readonly string[], value: unknown): Promise<void> {
    const write = this.#writes.then(async () => {
      // A file that could not be read is replaced by what this process knows.
      const lists = await this.#read().catch(() => {
        const fresh = empty();
        this.#lists = Promise.resolve(fresh);
        return fresh;
      });
      const [, tier, a, b] = key;
      if (tier === "global" && key.length === 3) lists.servers.set(a, value);
      else if (tier === "user" && key.length === 4) {
        let servers = lists.users.get(a);
        if (servers === undefined) lists.users.set(a, servers = new Map());
        servers.set(b, value);
      } else {
        throw new TypeError(`Cannot keep tool names under ${JSON.stringify(key)}`);
      }
      await Deno.writeTextFile(this.#path, format(lists));
    });
    this.#writes = write.catch(() => {});
    return write;
  }

  /**
   * Creates the file (empty) when it does not exist, before the start-up files are computed: a
   * protected file at a fixed place that appears during the session is taken for one a command
   * planted (and renamed aside), so it must exist from the start. A file that cannot be created
   * is left to the first write, which reports it.
   */
  async create(): Promise<void> {
    try {
      await Deno.writeTextFile(this.#path, format(empty()), { createNew: true });
    } catch {
      // Exists already, or not permitted: the gateway reports a write that fails.
    }
  }

  #read(): Promise<Lists> {
    return this.#lists ??= this.#load();
  }

  async #load(): Promise<Lists> {
    let text: string;
    try {
      text = await Deno.readTextFile(this.#path);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return empty();
      throw new Error(`Cannot read "${this.#path}": ${(error as Error).message}`);
    }
    const bad = (why: string) =>
      new Error(`Cannot read "${this.#path}": ${why}; it is rewritten at the next change`);
    let data: { version?: unknown; servers?: unknown; users?: unknown };
    try {
      data = JSON.parse(text);
    } catch (error) {
      throw bad((error as Error).message);
    }
    if (data === null || typeof data !== "object" || data.version !== 1) {
      throw bad('"version" must be 1');
    }
    const lists = empty();
    for (const [id, names] of entries(data.servers)) lists.servers.set(id, names);
    for (const [user, servers] of entries(data.users)) {
      lists.users.set(user, new Map(entries(servers)));
    }
    return lists;
  }
}

function empty(): Lists {
  return { servers: new Map(), users: new Map() };
}

/** An object's own entries; anything else has none. */
function entries(value: unknown): [string, unknown][] {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? Object.entries(value)
    : [];
}

/** The file's text: keys sorted, two-space indent, so a diff shows which list changed. */
function format(lists: Lists): string {
  const data = {
    version: 1,
    servers: Object.fromEntries(lists.servers),
    users: Object.fromEntries([...lists.users].map(([user, s]) => [user, Object.fromEntries(s)])),
  };
  return JSON.stringify(JSON.parse(canonicalJson(data)), null, 2) + "\n";
}

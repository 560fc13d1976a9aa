import { decodeBase64, encodeBase64 } from "./base64.ts";
import type { KeyValueStore } from "./store/key_value_store.ts";
import type { ResultStore, StoredResultInfo } from "./result_store.ts";

/** Bytes per stored chunk: under Deno KV's 64 KiB value limit once in base64 and JSON. */
const CHUNK_BYTES = 32 * 1024;

/**
 * A {@linkcode ResultStore} over a {@linkcode KeyValueStore} (the router's `store`; in memory by
 * default, Deno KV, SQLite or any other elsewhere, edge runtimes included): the bytes in base64
 * chunks of 32 KiB, so a page reads only the chunks it covers.
 *
 * @example Store a result and read a part of it
 * ```ts
 * import { KeyValueResultStore, MemoryStore } from "@toolroute/toolroute/stores";
 * import { assertEquals } from "@std/assert";
 *
 * const results = new KeyValueResultStore(new MemoryStore());
 * const bytes = new TextEncoder().encode("hello world");
 * const info = { userId: null, scope: "s", tool: "t", bytes: bytes.length, pageBytes: 100 };
 * await results.put("h1", bytes, info, { expireIn: 60_000 });
 * assertEquals(new TextDecoder().decode(await results.read("h1", 6, 11)), "world");
 * ```
 */
export class KeyValueResultStore implements ResultStore {
  #store: KeyValueStore;

  /**
   * Creates the store over a key-value store.
   *
   * @param store Where the chunks and info are kept.
   */
  constructor(store: KeyValueStore) {
    this.#store = store;
  }

  async put(
    handle: string,
    bytes: Uint8Array,
    info: StoredResultInfo,
    options: { expireIn: number },
  ): Promise<void> {
    for (let start = 0, index = 0; start < bytes.length; start += CHUNK_BYTES, index++) {
      const chunk = bytes.subarray(start, start + CHUNK_BYTES);
      await this.#store.set(key(handle, index), encodeBase64(chunk), options);
    }
    // The info goes last: a result is readable only once all of it is stored.
    await this.#store.set(key(handle), info, options);
  }

  info(handle: string): Promise<StoredResultInfo | undefined> {
    return this.#store.get<StoredResultInfo>(key(handle));
  }

  async read(handle: string, start: number, end: number): Promise<Uint8Array | undefined> {
    const out = new Uint8Array(Math.max(0, end - start));
    for (let index = Math.floor(start / CHUNK_BYTES); index * CHUNK_BYTES < end; index++) {
      const text = await this.#store.get<string>(key(handle, index));
      if (typeof text !== "string") return undefined;
      const chunk = decodeBase64(text);
      const from = Math.max(start, index * CHUNK_BYTES);
      const to = Math.min(end, index * CHUNK_BYTES + chunk.length);
      out.set(chunk.subarray(from - index * CHUNK_BYTES, to - index * CHUNK_BYTES), from - start);
    }
    return out;
  }

  async delete(handle: string): Promise<void> {
    const info = await this.info(handle);
    await this.#store.delete(key(handle));
    const chunks = info === undefined ? 0 : Math.ceil(info.bytes / CHUNK_BYTES);
    for (let index = 0; index < chunks; index++) await this.#store.delete(key(handle, index));
  }
}

function key(handle: string, chunk?: number): string[] {
  return ["toolroute", "results", handle, chunk === undefined ? "info" : String(chunk)];
}

import { decodeBase64, encodeBase64 } from "../base64.ts";
import type {
  KeyValueEntry,
  KeyValueIncrementOptions,
  KeyValueSetOptions,
  KeyValueStore,
} from "./key_value_store.ts";

/**
 * The first key parts whose values are secrets: OAuth tokens, registrations and pending
 * authorizations (`oauth`), approval grants (`grants`) and approvals (`approvals`). Whatever is
 * stored under them is sealed; everything else (pins, limit counts) is stored as it is.
 */
export const SECRET_KEY_PARTS: readonly string[] = Object.freeze(["oauth", "grants", "approvals"]);

/** What a store key may be: 32 bytes, their base64, or an AES-GCM `CryptoKey`. */
export type StoreKey = string | Uint8Array | CryptoKey;

const ALGORITHM = "aes-256-gcm";
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A value as the inner store holds it under a secret key part. */
interface Sealed {
  sealed: typeof ALGORITHM;
  iv: string;
  data: string;
}

/**
 * Whether values under `key` are secrets that an {@linkcode EncryptedStore} seals.
 *
 * @returns `true` when its first part is one of {@linkcode SECRET_KEY_PARTS}.
 */
export function isSecretKey(key: readonly string[]): boolean {
  return SECRET_KEY_PARTS.includes(key[0]);
}

/**
 * A {@linkcode KeyValueStore} that encrypts secrets at rest in another one: every value under a
 * key that starts with `oauth`, `grants` or `approvals` is sealed with AES-256-GCM (WebCrypto), a
 * fresh random IV per write and the key itself as additional data, so a sealed value copied to
 * another key does not open. Other values (pins, limit counts) pass through unchanged, so counts
 * stay atomic. Works over every store (memory, SQLite, Deno KV, Redis).
 *
 * Reading a sealed value with another key, or one that was changed, throws an `Error`; a value
 * stored under a secret key part without encryption (before the key was set) reads as absent, so
 * it is asked for again rather than trusted.
 *
 * @example Seal OAuth tokens in any store
 * ```ts
 * import { assertEquals } from "@std/assert";
 * import { EncryptedStore, MemoryStore } from "@toolroute/toolroute/stores";
 *
 * const inner = new MemoryStore();
 * const key = crypto.getRandomValues(new Uint8Array(32));
 * const store = new EncryptedStore(inner, key);
 * await store.set(["oauth", "tokens", "alice"], { access_token: "secret" });
 * assertEquals(await store.get(["oauth", "tokens", "alice"]), { access_token: "secret" });
 * const raw = await inner.get<{ sealed: string }>(["oauth", "tokens", "alice"]);
 * assertEquals(raw?.sealed, "aes-256-gcm");
 * ```
 */
export class EncryptedStore implements KeyValueStore {
  #inner: KeyValueStore;
  #key: Promise<CryptoKey>;

  /**
   * Throws a `TypeError` when the key is not 32 bytes (or their base64) or an AES-GCM key.
   *
   * @param inner The store that holds the sealed values.
   * @param key 32 random bytes (`openssl rand -base64 32`), or a `CryptoKey` for AES-GCM.
   */
  constructor(inner: KeyValueStore, key: StoreKey) {
    this.#inner = inner;
    const material = keyMaterial(key);
    this.#key = material instanceof Uint8Array
      ? crypto.subtle.importKey("raw", material, "AES-GCM", false, ["encrypt", "decrypt"])
      : Promise.resolve(material);
  }

  async get<T = unknown>(key: readonly string[]): Promise<T | undefined> {
    const stored = await this.#inner.get(key);
    if (stored === undefined || !isSecretKey(key)) return stored as T | undefined;
    return await this.#open(key, stored) as T | undefined;
  }

  async set(key: readonly string[], value: unknown, options?: KeyValueSetOptions): Promise<void> {
    await this.#inner.set(key, isSecretKey(key) ? await this.#seal(key, value) : value, options);
  }

  async setIfAbsent(
    key: readonly string[],
    value: unknown,
    options?: KeyValueSetOptions,
  ): Promise<boolean> {
    const stored = isSecretKey(key) ? await this.#seal(key, value) : value;
    return await this.#inner.setIfAbsent(key, stored, options);
  }

  increment(key: readonly string[], options?: KeyValueIncrementOptions): Promise<number> {
    if (isSecretKey(key)) {
      return Promise.reject(
        new TypeError(
          `Cannot count under ${
            JSON.stringify(key)
          }: counts are not secrets; keep them under another key part`,
        ),
      );
    }
    return this.#inner.increment(key, options);
  }

  delete(key: readonly string[]): Promise<void> {
    return this.#inner.delete(key);
  }

  async list<T = unknown>(prefix: readonly string[]): Promise<KeyValueEntry<T>[]> {
    const entries = await this.#inner.list(prefix);
    const opened: KeyValueEntry<T>[] = [];
    for (const entry of entries) {
      if (!isSecretKey(entry.key)) {
        opened.push(entry as KeyValueEntry<T>);
        continue;
      }
      const value = await this.#open(entry.key, entry.value);
      if (value !== undefined) opened.push({ key: entry.key, value: value as T });
    }
    return opened;
  }

  async #seal(key: readonly string[], value: unknown): Promise<Sealed> {
    const json = JSON.stringify(value);
    if (json === undefined) {
      throw new TypeError("Cannot store a value that is not JSON: pass plain data");
    }
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const data = await crypto.subtle.encrypt(
      { name: "AES-GCM", iv, additionalData: encoder.encode(JSON.stringify(key)) },
      await this.#key,
      encoder.encode(json),
    );
    return { sealed: ALGORITHM, iv: encodeBase64(iv), data: encodeBase64(new Uint8Array(data)) };
  }

  async #open(key: readonly string[], stored: unknown): Promise<unknown> {
    if (!isSealed(stored)) return undefined;
    let plain: ArrayBuffer;
    try {
      plain = await crypto.subtle.decrypt(
        {
          name: "AES-GCM",
          iv: decodeBase64(stored.iv),
          additionalData: encoder.encode(JSON.stringify(key)),
        },
        await this.#key,
        decodeBase64(stored.data),
      );
    } catch (error) {
      if (error instanceof TypeError) throw error; // the key itself is unusable
      throw new Error(
        `Cannot decrypt the value under ${
          JSON.stringify(key)
        }: it was stored with another storeKey, or changed since; give the key it was stored with, or delete it`,
        { cause: error },
      );
    }
    return JSON.parse(decoder.decode(plain));
  }
}

function isSealed(value: unknown): value is Sealed {
  if (value === null || typeof value !== "object") return false;
  const { sealed, iv, data } = value as Partial<Sealed>;
  return sealed === ALGORITHM && typeof iv === "string" && typeof data === "string";
}

function keyMaterial(key: StoreKey): Uint8Array<ArrayBuffer> | CryptoKey {
  const hint = "pass 32 random bytes or their base64 (openssl rand -base64 32)";
  if (typeof CryptoKey !== "undefined" && key instanceof CryptoKey) {
    if (key.algorithm.name !== "AES-GCM") {
      throw new TypeError(`Cannot use the storeKey: it is a ${key.algorithm.name} key; ${hint}`);
    }
    return key;
  }
  let bytes: Uint8Array;
  if (typeof key === "string") {
    try {
      bytes = decodeBase64(key.trim().replaceAll("-", "+").replaceAll("_", "/"));
    } catch {
      throw new TypeError(`Cannot use the storeKey: it is not base64; ${hint}`);
    }
  } else if (key instanceof Uint8Array) bytes = key;
  else throw new TypeError(`Cannot use the storeKey: ${hint}`);
  if (bytes.length !== 32) {
    throw new TypeError(`Cannot use the storeKey: it has ${bytes.length} bytes; ${hint}`);
  }
  return new Uint8Array(bytes);
}

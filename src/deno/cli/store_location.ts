import { resolve } from "@std/path";
import type { KeyValueStore } from "../../core/store/key_value_store.ts";
import { RedisStore } from "../store/redis_store.ts";
import { SqliteStore } from "../store/sqlite_store.ts";
import { UsageError } from "./usage_error.ts";

/**
 * Where `--store` keeps serve's state: a SQLite file (`file`, absolute), or a Redis server
 * (`url`, `redis://` or `rediss://`, with `host` its `host:port`, and `net` what `--allow-net`
 * must grant to reach it).
 */
export type StoreLocation =
  | { readonly file: string }
  | { readonly url: string; readonly host: string; readonly net: string; readonly name: string };

/** The variables the Redis client reads (its debug switches), so it needs their permission. */
export const REDIS_CLIENT_ENV: readonly string[] = [
  "REDIS_DEBUG_MAINTENANCE",
  "REDIS_EMIT_DIAGNOSTICS",
];

/** Redis's port when a URL names none. */
const REDIS_PORT = "6379";

/**
 * Reads a `--store` flag: a `redis://` or `rediss://` URL names a Redis server, anything else a
 * SQLite file (resolved against the current folder). Throws a {@linkcode UsageError} for a Redis
 * URL that does not parse or names no host.
 *
 * @returns The location, or `undefined` without the flag.
 */
export function storeLocation(flag: string | true | undefined): StoreLocation | undefined {
  if (typeof flag !== "string") return undefined;
  if (!/^rediss?:\/\//i.test(flag)) return { file: resolve(flag) };
  let url: URL;
  try {
    url = new URL(flag);
  } catch {
    throw new UsageError(
      '"--store" is not a valid Redis URL: use redis://[user:password@]host[:port][/db] (rediss:// for TLS)',
    );
  }
  if (url.hostname === "") {
    throw new UsageError('"--store" names no Redis host: use redis://host[:port][/db]');
  }
  const host = `${url.hostname}:${url.port || REDIS_PORT}`;
  // The Redis client connects through node's net, which looks a name up first; Deno checks that
  // lookup against the name without a port, so a name needs the whole host, an address only its
  // port (it is not looked up).
  const address = /^\d+(\.\d+){3}$/.test(url.hostname) || url.hostname.startsWith("[");
  const net = address ? host : url.hostname;
  // The name said in messages and warnings carries no password.
  return { url: flag, host, net, name: `${url.protocol}//${host}${url.pathname}` };
}

/**
 * Opens the store at a location. Throws a {@linkcode UsageError} when a Redis server cannot be
 * reached.
 *
 * @tags allow-read, allow-write, allow-net
 * @returns The store, its name for messages, and how to close it.
 */
export async function openStore(
  location: StoreLocation,
): Promise<{ store: KeyValueStore; name: string } & AsyncDisposable> {
  if ("file" in location) {
    const store = new SqliteStore(location.file);
    return {
      store,
      name: `"${location.file}"`,
      [Symbol.asyncDispose]: () => Promise.resolve(store.close()),
    };
  }
  let store: RedisStore;
  try {
    store = await RedisStore.connect(location.url);
  } catch (error) {
    throw new UsageError(
      `Cannot reach the Redis store ${location.name}: ${
        (error as Error).message.replaceAll(location.url, location.name)
      }; check that it runs and that the URL is right`,
    );
  }
  return { store, name: location.name, [Symbol.asyncDispose]: () => store.close() };
}

import { resolve } from "@std/path";
import type { KeyValueStore } from "../../core/store/key_value_store.ts";
import { RedisStore } from "../store/redis_store.ts";
import { SqliteStore } from "../store/sqlite_store.ts";
import { servedStore } from "./served_store.ts";
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
 * Opens the store at a location, as serve keeps its state there (`servedStore`: sealed with
 * `TOOLROUTE_STORE_KEY` when that is set, else `warn` is told once). Throws a
 * {@linkcode UsageError} when a Redis server cannot be reached.
 *
 * @tags allow-read, allow-write, allow-net, allow-env
 * @param warn Receives the warning line of a store that keeps secrets unencrypted.
 * @returns The store, and how to close it.
 */
export async function openStore(
  location: StoreLocation,
  warn: (line: string) => void,
): Promise<{ store: KeyValueStore } & AsyncDisposable> {
  const opened = "file" in location ? new SqliteStore(location.file) : await connect(location);
  const close = () => Promise.resolve(opened.close());
  try {
    const name = "file" in location ? `"${location.file}"` : location.name;
    return { store: servedStore(opened, { name, warn }), [Symbol.asyncDispose]: close };
  } catch (error) {
    await close(); // A key that is not one: the store is not used.
    throw error;
  }
}

async function connect(location: { url: string; name: string }): Promise<RedisStore> {
  try {
    return await RedisStore.connect(location.url);
  } catch (error) {
    throw new UsageError(
      `Cannot reach the Redis store ${location.name}: ${
        (error as Error).message.replaceAll(location.url, location.name)
      }; check that it runs and that the URL is right`,
    );
  }
}

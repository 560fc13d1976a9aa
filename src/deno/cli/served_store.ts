import { EncryptedStore, isSecretKey } from "../../core/store/encrypted_store.ts";
import type {
  KeyValueEntry,
  KeyValueIncrementOptions,
  KeyValueSetOptions,
  KeyValueStore,
} from "../../core/store/key_value_store.ts";
import { UsageError } from "./usage_error.ts";

/** The variable that holds the key that encrypts the secrets in `serve --store`. */
export const STORE_KEY_VARIABLE = "TOOLROUTE_STORE_KEY";

/**
 * The store `serve --store` keeps its state in (pins, approvals, limit counts, OAuth tokens):
 * with `TOOLROUTE_STORE_KEY` set, its secrets are sealed (`EncryptedStore`); without it they are
 * stored as they are, and `warn` is called once, when the first secret is written.
 *
 * Throws a {@linkcode UsageError} when the key is set but is not 32 bytes of base64.
 *
 * @tags allow-env
 * @param store The store file's store.
 * @param options What to call the file in the warning, the warning's output, the environment.
 */
export function servedStore(
  store: KeyValueStore,
  options: {
    name: string;
    warn: (line: string) => void;
    env?: (name: string) => string | undefined;
  },
): KeyValueStore {
  const key = (options.env ?? readEnv)(STORE_KEY_VARIABLE);
  if (key !== undefined && key !== "") {
    try {
      return new EncryptedStore(store, key);
    } catch (error) {
      throw new UsageError(`${STORE_KEY_VARIABLE}: ${(error as Error).message}`);
    }
  }
  return new PlainSecretsStore(store, () =>
    options.warn(
      `warning: storing OAuth tokens and approvals unencrypted in ${options.name}; set ${STORE_KEY_VARIABLE} to 32 random bytes in base64 (openssl rand -base64 32) to encrypt them`,
    ));
}

function readEnv(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined; // not permitted: the warning says how to encrypt
  }
}

/** A store that says once, when the first secret is written, that secrets are stored plain. */
class PlainSecretsStore implements KeyValueStore {
  #inner: KeyValueStore;
  #warn?: () => void;

  constructor(inner: KeyValueStore, warn: () => void) {
    this.#inner = inner;
    this.#warn = warn;
  }

  get<T = unknown>(key: readonly string[]): Promise<T | undefined> {
    return this.#inner.get<T>(key);
  }

  set(key: readonly string[], value: unknown, options?: KeyValueSetOptions): Promise<void> {
    this.#check(key);
    return this.#inner.set(key, value, options);
  }

  setIfAbsent(
    key: readonly string[],
    value: unknown,
    options?: KeyValueSetOptions,
  ): Promise<boolean> {
    this.#check(key);
    return this.#inner.setIfAbsent(key, value, options);
  }

  increment(key: readonly string[], options?: KeyValueIncrementOptions): Promise<number> {
    return this.#inner.increment(key, options);
  }

  delete(key: readonly string[]): Promise<void> {
    return this.#inner.delete(key);
  }

  list<T = unknown>(prefix: readonly string[]): Promise<KeyValueEntry<T>[]> {
    return this.#inner.list<T>(prefix);
  }

  #check(key: readonly string[]): void {
    if (this.#warn === undefined || !isSecretKey(key)) return;
    const warn = this.#warn;
    this.#warn = undefined;
    warn();
  }
}

import { EncryptedStore, isSecretKey } from "../../core/store/encrypted_store.ts";
import type { KeyValueStore } from "../../core/store/key_value_store.ts";
import { hostEnv } from "../sandbox/bwrap_search_path.ts";
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
  // Not permitted reads as unset: the warning says how to encrypt.
  const key = (options.env ?? hostEnv)(STORE_KEY_VARIABLE);
  if (key !== undefined && key !== "") {
    try {
      return new EncryptedStore(store, key);
    } catch (error) {
      throw new UsageError(`${STORE_KEY_VARIABLE}: ${(error as Error).message}`);
    }
  }
  return plainSecretsStore(store, () =>
    options.warn(
      `warning: storing OAuth tokens and approvals unencrypted in ${options.name}; set ${STORE_KEY_VARIABLE} to 32 random bytes in base64 (openssl rand -base64 32) to encrypt them`,
    ));
}

/** A store that says once, when the first secret is written, that secrets are stored plain. */
function plainSecretsStore(inner: KeyValueStore, warn: () => void): KeyValueStore {
  let warned = false;
  const check = (key: readonly string[]) => {
    if (warned || !isSecretKey(key)) return;
    warned = true;
    warn();
  };
  return {
    get: (key) => inner.get(key),
    set(key, value, options) {
      check(key);
      return inner.set(key, value, options);
    },
    setIfAbsent(key, value, options) {
      check(key);
      return inner.setIfAbsent(key, value, options);
    },
    increment: (key, options) => inner.increment(key, options),
    delete: (key) => inner.delete(key),
    list: (prefix) => inner.list(prefix),
  };
}

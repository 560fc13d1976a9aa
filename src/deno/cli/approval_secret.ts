import type { KeyValueStore } from "../../core/store/key_value_store.ts";

/** The variable holding the secret that signs the approvals and grants of `serve --store`. */
export const APPROVAL_SECRET_VARIABLE = "TOOLROUTE_APPROVAL_SECRET";

/**
 * The secret every `serve` process on one store signs approvals and grants with: the variable's
 * when it is set, else one made once at random by the first process (atomically) and read by all,
 * so an approval one process issued another can settle, and a grant outlives a restart. (With a
 * store key the store encrypts it, as it does every value under `approvals`.)
 *
 * @tags allow-env
 * @param store The shared store (`--store`).
 */
export async function sharedApprovalSecret(store: KeyValueStore): Promise<string> {
  // Needs allow-env for the variable; empty counts as unset.
  const given = Deno.env.get(APPROVAL_SECRET_VARIABLE);
  if (given !== undefined && given !== "") return given;
  const key = ["approvals", "secret"];
  const made = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
  await store.setIfAbsent(key, made);
  const secret = await store.get<string>(key);
  if (typeof secret !== "string" || secret.length < 16) {
    throw new Error(`The store holds no usable approval secret under ${key.join("/")}`);
  }
  return secret;
}

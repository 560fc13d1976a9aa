/**
 * Someone who can write a shared `--store` but does not hold `TOOLROUTE_STORE_KEY` plants the
 * approvals' secret before serve first starts, to forge approvals and grants with it.
 *
 * @module
 */
import { assertEquals, assertNotEquals, assertRejects } from "@std/assert";
import { MemoryStore } from "../../../src/core/store/memory_store.ts";
import { EncryptedStore } from "../../../src/core/store/encrypted_store.ts";
import { sharedApprovalSecret } from "../../../src/deno/cli/approval_secret.ts";

const KEY = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
const PLANTED = "attacker-knows-this-secret-0123456789";

Deno.test("a plain approvals secret planted in an encrypted store is never used: serve refuses to start", async () => {
  const inner = new MemoryStore();
  await inner.set(["approvals", "secret"], PLANTED);
  // The plant is really there, readable as plain text by anyone who reads the store.
  assertEquals(await inner.get(["approvals", "secret"]), PLANTED);
  await assertRejects(
    () => sharedApprovalSecret(new EncryptedStore(inner, KEY)),
    Error,
    "no usable approval secret",
  );
});

Deno.test("a sealed approvals secret moved from another key part does not open", async () => {
  const inner = new MemoryStore();
  const store = new EncryptedStore(inner, KEY);
  // The attacker gets a value sealed by the same key under a key part of its choosing (a grant
  // reason, say) and copies the ciphertext to the secret's place.
  await store.set(["approvals", "used", "x"], PLANTED);
  await inner.set(["approvals", "secret"], await inner.get(["approvals", "used", "x"]));
  await assertRejects(() => sharedApprovalSecret(store), Error, "Cannot decrypt");
  // Without a plant, serve makes its own random secret, sealed.
  const fresh = new MemoryStore();
  const secret = await sharedApprovalSecret(new EncryptedStore(fresh, KEY));
  assertNotEquals(secret, PLANTED);
  assertEquals(
    (await fresh.get<{ sealed: string }>(["approvals", "secret"]))?.sealed,
    "aes-256-gcm",
  );
});

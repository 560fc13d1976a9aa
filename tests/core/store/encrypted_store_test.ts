import { assert, assertEquals, assertRejects, assertThrows } from "@std/assert";
import { z } from "zod";
import { defineTool, ToolRouter } from "../../../mod.ts";
import { EncryptedStore, MemoryStore } from "../../../src/core/stores.ts";
import { checkKeyValueStore } from "../../_helpers/key_value_store_contract.ts";

const KEY = crypto.getRandomValues(new Uint8Array(32));
const TOKEN = "gho_supersecrettoken0123456789";

Deno.test("EncryptedStore keeps the KeyValueStore contract", async () => {
  assert(await checkKeyValueStore((now) => new EncryptedStore(new MemoryStore({ now }), KEY)) > 15);
});

Deno.test("secrets are sealed at rest under oauth, grants and approvals, and read back whole", async () => {
  const inner = new MemoryStore();
  const store = new EncryptedStore(inner, KEY);
  for (const part of ["oauth", "grants", "approvals"]) {
    await store.set([part, "alice", "x"], { token: TOKEN });
    assertEquals(await store.get([part, "alice", "x"]), { token: TOKEN });
    assertEquals(await store.list([part]), [{
      key: [part, "alice", "x"],
      value: { token: TOKEN },
    }]);
  }
  assertEquals(await store.setIfAbsent(["oauth", "used", "s"], { token: TOKEN }), true);
  // What an attacker who reads the database file sees: no token anywhere.
  const raw = JSON.stringify(await inner.list([]));
  assert(!raw.includes(TOKEN), raw);
  assert(!raw.includes(btoa(TOKEN).slice(0, 12)), raw);
  assertEquals(
    (await inner.get<{ sealed: string }>(["grants", "alice", "x"]))?.sealed,
    "aes-256-gcm",
  );
  // Pins and counts are not secrets: stored as they are, counts stay atomic.
  await store.set(["pins", "global", "docs"], { hash: "h" });
  assertEquals(await inner.get(["pins", "global", "docs"]), { hash: "h" });
  assertEquals(await store.increment(["limits", "n"]), 1);
  await assertRejects(() => store.increment(["grants", "n"]), TypeError);
});

Deno.test("a sealed value moved to another key, changed, or read with another key does not open", async () => {
  const inner = new MemoryStore();
  const store = new EncryptedStore(inner, KEY);
  await store.set(["oauth", "tokens", "alice"], { token: TOKEN });
  const sealed = await inner.get<{ sealed: string; iv: string; data: string }>([
    "oauth",
    "tokens",
    "alice",
  ]);
  // Mallory copies Alice's sealed token to her own key.
  await inner.set(["oauth", "tokens", "mallory"], sealed);
  await assertRejects(() => store.get(["oauth", "tokens", "mallory"]), Error, "Cannot decrypt");
  // One flipped bit in the ciphertext.
  const data = atob(sealed!.data);
  const flipped = String.fromCharCode(data.charCodeAt(0) ^ 1) + data.slice(1);
  await inner.set(["oauth", "tokens", "alice"], { ...sealed, data: btoa(flipped) });
  await assertRejects(() => store.get(["oauth", "tokens", "alice"]), Error, "Cannot decrypt");
  // Another key.
  await store.set(["oauth", "tokens", "alice"], { token: TOKEN });
  const other = new EncryptedStore(inner, crypto.getRandomValues(new Uint8Array(32)));
  await assertRejects(() => other.get(["oauth", "tokens", "alice"]), Error, "another storeKey");
});

Deno.test("a plain value planted under a secret key part reads as absent, never as a secret", async () => {
  const inner = new MemoryStore();
  await inner.set(["oauth", "tokens", "alice"], { access_token: "planted-by-attacker" });
  const store = new EncryptedStore(inner, KEY);
  assertEquals(await inner.get(["oauth", "tokens", "alice"]) !== undefined, true, "it is there");
  assertEquals(await store.get(["oauth", "tokens", "alice"]), undefined);
  assertEquals(await store.list(["oauth"]), []);
});

Deno.test("a store key must be 32 bytes, their base64, or an AES-GCM CryptoKey", async () => {
  const inner = new MemoryStore();
  for (const bad of ["short", "", new Uint8Array(16), btoa("x".repeat(31))]) {
    assertThrows(() => new EncryptedStore(inner, bad), TypeError, "storeKey");
  }
  const hmac = await crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  assertThrows(() => new EncryptedStore(inner, hmac), TypeError, "HMAC");
  const base64 = btoa(String.fromCharCode(...KEY));
  await new EncryptedStore(inner, base64).set(["oauth", "k"], 1);
  assertEquals(
    await new EncryptedStore(inner, KEY).get(["oauth", "k"]),
    1,
    "same key, either form",
  );
  const aes = await crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, false, [
    "encrypt",
    "decrypt",
  ]);
  await new EncryptedStore(inner, aes).set(["grants", "g"], "ok");
  assertThrows(() => new ToolRouter({ storeKey: "not a key" }), TypeError, "storeKey");
});

Deno.test("a router with storeKey seals what it keeps about approvals in its store", async () => {
  const inner = new MemoryStore();
  const deploy = defineTool({
    name: "deploy",
    description: "Deploys",
    input: z.object({ env: z.string() }),
    run: () => "deployed",
  });
  const router = new ToolRouter({
    functions: [deploy],
    policy: { ask: ["deploy"] },
    store: inner,
    storeKey: KEY,
  });
  const tools = await router.expose({ functions: ["deploy"], userId: "alice" });
  const asked = await tools.call("deploy", { env: "prod" });
  assertEquals((await tools.approve(asked.approval!)).text, "deployed");
  const kept = await inner.list(["approvals"]);
  assert(kept.length > 0, "the used approval was recorded");
  for (const entry of kept) {
    assertEquals((entry.value as { sealed?: string }).sealed, "aes-256-gcm");
  }
  // Still single-use through the sealed record.
  assertEquals((await tools.approve(asked.approval!)).code, "permission_denied");
});

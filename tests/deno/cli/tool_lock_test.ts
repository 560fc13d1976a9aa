import { assertEquals, assertMatch, assertRejects } from "@std/assert";
import { hashToolDefinition } from "../../../src/core/mcp/gateway/pinning/tool_definition_hash.ts";
import { MemoryStore } from "../../../src/core/store/memory_store.ts";
import {
  formatToolLock,
  lockFromStore,
  readToolLock,
  storeFromLock,
} from "../../../src/deno/cli/tool_lock.ts";

Deno.test("lockFromStore keeps servers and users named like Object.prototype's members as their own entries", async () => {
  const store = new MemoryStore();
  const pin = (hash: string) => ({ hash, definition: { name: hash } });
  await store.set(["pins", "global", "toString", "echo"], pin("a"));
  await store.set(["pins", "global", "constructor", "add"], pin("b"));
  await store.set(["pins", "user", "__proto__", "hasOwnProperty", "who"], pin("c"));
  const lock = await lockFromStore(store);
  assertEquals(Object.keys(lock.servers).sort(), ["constructor", "toString"]);
  assertEquals(lock.servers["toString"]["echo"].hash, "a");
  assertEquals(lock.servers["constructor"]["add"].hash, "b");
  assertEquals(Object.hasOwn(lock.users, "__proto__"), true);
  assertEquals(lock.users["__proto__"]["hasOwnProperty"]["who"].hash, "c");
  // Nothing was written onto the shared prototype's members.
  assertEquals(Object.hasOwn(Object.prototype.toString, "echo"), false);
  assertEquals(Object.hasOwn(Object, "add"), false);
});

Deno.test("a tool named __proto__ goes through the lock file and back as its own entry", async () => {
  const definition = { name: "__proto__", description: "a server's odd but legal tool name" };
  const { hash } = await hashToolDefinition(definition);
  const store = new MemoryStore();
  await store.set(["pins", "global", "odd", "__proto__"], { hash, definition });
  await store.set(["pins", "global", "odd", "plain"], { hash, definition });
  const lock = await lockFromStore(store);
  assertEquals(Object.keys(lock.servers.odd).sort(), ["__proto__", "plain"]);
  assertEquals(Object.getPrototypeOf(lock.servers.odd), Object.prototype);

  const path = await Deno.makeTempFile({ suffix: ".lock" });
  try {
    await Deno.writeTextFile(path, formatToolLock(lock));
    assertMatch(await Deno.readTextFile(path), /"__proto__": \{/);
    const read = await readToolLock(path);
    assertEquals(Object.hasOwn(read!.servers.odd, "__proto__"), true);
    assertEquals(read!.servers.odd["__proto__"].hash, hash);
    const pins = await storeFromLock(read!);
    assertEquals(
      (await pins.get<{ hash: string }>(["pins", "global", "odd", "__proto__"]))?.hash,
      hash,
    );
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("readToolLock() checks a __proto__ entry as any other and names it", async () => {
  const path = await Deno.makeTempFile({ suffix: ".lock" });
  try {
    await Deno.writeTextFile(
      path,
      '{"version":1,"servers":{"odd":{"__proto__":{"hash":5,"definition":{}}}}}',
    );
    await assertRejects(() => readToolLock(path), TypeError, "servers.odd.__proto__.hash");
  } finally {
    await Deno.remove(path);
  }
});

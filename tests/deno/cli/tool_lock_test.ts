import { assertEquals } from "@std/assert";
import { MemoryStore } from "../../../src/core/store/memory_store.ts";
import { lockFromStore } from "../../../src/deno/cli/tool_lock.ts";

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

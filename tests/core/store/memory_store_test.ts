import { assertEquals, assertThrows } from "@std/assert";
import { MemoryStore } from "../../../src/core/store/memory_store.ts";

Deno.test("MemoryStore get, set and delete keep values apart by whole key", async () => {
  const store = new MemoryStore();
  await store.set(["a", "b"], { n: 1 });
  await store.set(["a", "b", "c"], { n: 2 });
  assertEquals(await store.get(["a", "b"]), { n: 1 });
  assertEquals(await store.get(["a", "b", "c"]), { n: 2 });
  assertEquals(await store.get(["a"]), undefined);
  await store.delete(["a", "b"]);
  assertEquals(await store.get(["a", "b"]), undefined);
  assertEquals(await store.get(["a", "b", "c"]), { n: 2 });
});

Deno.test("MemoryStore copies values, so a caller's later mutation changes nothing stored", async () => {
  const store = new MemoryStore();
  const value = { list: [1] };
  await store.set(["k"], value);
  value.list.push(2);
  const got = await store.get<{ list: number[] }>(["k"]);
  got!.list.push(3);
  assertEquals(await store.get(["k"]), { list: [1] });
});

Deno.test("MemoryStore setIfAbsent stores once, and again only after expiry", async () => {
  let now = 1_000;
  const store = new MemoryStore({ now: () => now });
  assertEquals(await store.setIfAbsent(["used", "x"], true, { expireIn: 50 }), true);
  assertEquals(await store.setIfAbsent(["used", "x"], true), false);
  now += 50;
  assertEquals(await store.get(["used", "x"]), undefined);
  assertEquals(await store.setIfAbsent(["used", "x"], true), true);
});

Deno.test("MemoryStore list returns a prefix's entries in key order, not keys that merely share text", async () => {
  const store = new MemoryStore();
  await store.set(["pins", "bob", "s"], 2);
  await store.set(["pins", "alice", "s"], 1);
  await store.set(["pinsX", "carol"], 3);
  await store.set(["pins", "al"], 0);
  assertEquals(await store.list(["pins"]), [
    { key: ["pins", "al"], value: 0 },
    { key: ["pins", "alice", "s"], value: 1 },
    { key: ["pins", "bob", "s"], value: 2 },
  ]);
  assertEquals((await store.list([])).length, 4);
});

Deno.test("MemoryStore refuses an empty key, a non-JSON value and a bad expireIn", () => {
  const store = new MemoryStore();
  assertThrows(() => store.get([]), TypeError, "empty key");
  assertThrows(() => store.set(["k"], undefined), TypeError, "not JSON");
  assertThrows(() => store.set(["k"], 1, { expireIn: -1 }), RangeError, "expireIn");
});

Deno.test("MemoryStore drops expired entries that are never read again, so a long run holds about its live ones", async () => {
  let now = 0;
  const store = new MemoryStore({ now: () => now });
  // As a limit's counts do: one key per user and window, each expiring after its window and
  // never read once the window is gone; 50,000 users come once each, a second apart.
  for (let user = 0; user < 50_000; user++) {
    now = user * 1_000;
    await store.increment(["limits", `user-${user}`, String(user)], { expireIn: 2_000 });
    await store.setIfAbsent(["used", `approval-${user}`], true, { expireIn: 2_000 });
  }
  assertEquals(store.size <= 2_048, true, `the store holds ${store.size} entries`);
  // What has not expired is all still there, whatever the sweeps dropped.
  assertEquals(await store.get(["limits", "user-49999", "49999"]), 1);
  assertEquals(await store.get(["limits", "user-49998", "49998"]), 1);
  assertEquals(await store.setIfAbsent(["used", "approval-49999"], true), false);
});

Deno.test("MemoryStore keeps every live entry through its sweeps", async () => {
  let now = 0;
  const store = new MemoryStore({ now: () => now });
  for (let i = 0; i < 5_000; i++) {
    now = i;
    await store.set(["kept", String(i)], i);
    await store.set(["brief", String(i)], i, { expireIn: 1 });
  }
  const kept = await store.list(["kept"]);
  assertEquals(kept.length, 5_000);
  assertEquals(store.size < 5_000 + 2_048, true, `the store holds ${store.size} entries`);
});

Deno.test("attack: a sweep at the exact millisecond of expiry drops only what a read would treat as gone", async () => {
  let now = 0;
  const swept = new MemoryStore({ now: () => now });
  const unswept = new MemoryStore({ now: () => now });
  const write = async (store: MemoryStore, many: boolean) => {
    // A used approval's marker and a limit's count that expire at 100, and ones a millisecond
    // later; fillers to 2048 entries, the size at which the second sweep is due.
    await store.setIfAbsent(["used", "at"], true, { expireIn: 100 });
    await store.setIfAbsent(["used", "after"], true, { expireIn: 101 });
    await store.increment(["limits", "at"], { expireIn: 100 });
    await store.increment(["limits", "after"], { expireIn: 101 });
    for (let i = 0; many && i < 2_044; i++) {
      await store.set(["filler", String(i)], i, { expireIn: 50 });
    }
  };
  await write(swept, true);
  await write(unswept, false);
  now = 100;
  const before = swept.size;
  await swept.set(["new"], 1);
  // The attack ran: the write swept (the store shrank), at expiresAt equal to now.
  assertEquals(before > swept.size + 2_000, true, `${before} -> ${swept.size}`);
  for (const store of [swept, unswept]) {
    // A marker still live cannot be claimed again; one at its expiry is gone either way.
    assertEquals(await store.setIfAbsent(["used", "after"], true), false);
    assertEquals(await store.setIfAbsent(["used", "at"], true), true);
    // A count still in its window goes on; one at its window's end starts over either way.
    assertEquals(await store.increment(["limits", "after"]), 2);
    assertEquals(await store.increment(["limits", "at"]), 1);
  }
});

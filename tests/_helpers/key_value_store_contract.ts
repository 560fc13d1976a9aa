import { assertEquals, assertRejects, assertThrows } from "@std/assert";
import type { KeyValueStore } from "../../src/core/store/key_value_store.ts";

/**
 * The behaviour every `KeyValueStore` shares: round trips, copies, setIfAbsent, expiry (through
 * the injected clock), prefixes and bad input. Returns how many claims were checked.
 *
 * @param make Makes an empty store on the given clock.
 */
export async function checkKeyValueStore(
  make: (now: () => number) => KeyValueStore | Promise<KeyValueStore>,
): Promise<number> {
  let clock = 1_000_000;
  const store = await make(() => clock);
  let checks = 0;
  const eq = (actual: unknown, expected: unknown, what: string) => {
    assertEquals(actual, expected, what);
    checks++;
  };
  eq(await store.get(["a"]), undefined, "absent key");
  const value = { n: 1, list: [1, "two"], nested: { ok: true } };
  await store.set(["a", "b"], value);
  value.n = 2;
  eq(await store.get(["a", "b"]), { n: 1, list: [1, "two"], nested: { ok: true } }, "copied in");
  await store.set(["a", "b"], "replaced");
  eq(await store.get(["a", "b"]), "replaced", "set replaces");
  eq(await store.setIfAbsent(["once"], 1), true, "first claim");
  eq(await store.setIfAbsent(["once"], 2), false, "second claim");
  eq(await store.get(["once"]), 1, "first value kept");
  await store.set(["ttl"], "short", { expireIn: 50 });
  eq(await store.get(["ttl"]), "short", "live before expiry");
  clock += 51;
  eq(await store.get(["ttl"]), undefined, "gone after expiry");
  eq(await store.setIfAbsent(["ttl"], "again"), true, "an expired key counts as absent");
  await store.set(["p", "x"], 1);
  await store.set(["p", "y", "z"], 2);
  await store.set(["p"], 0);
  await store.set(["px"], 9);
  await store.set(["p2", "x"], 9);
  eq(await store.list(["p"]), [{ key: ["p", "x"], value: 1 }, {
    key: ["p", "y", "z"],
    value: 2,
  }], "list takes only keys under the prefix");
  eq((await store.list([])).length >= 7, true, "an empty prefix lists everything");
  await store.delete(["p", "x"]);
  await store.delete(["never", "there"]);
  eq(await store.get(["p", "x"]), undefined, "deleted");
  await store.set(["odd", 'quo"te', "nul\u0000", "\u0001"], "ok");
  eq(await store.list(["odd", 'quo"te']), [{
    key: ["odd", 'quo"te', "nul\u0000", "\u0001"],
    value: "ok",
  }], "key parts with quotes and control characters");
  eq(await store.increment(["count", "a"]), 1, "increment starts from nothing");
  eq(await store.increment(["count", "a"], { by: 4 }), 5, "increment adds");
  eq(await store.increment(["count", "a"], { by: -2 }), 3, "increment takes back");
  eq(await store.get(["count", "a"]), 3, "a count reads as a number");
  eq(
    await Promise.all(Array.from({ length: 20 }, () => store.increment(["count", "race"])))
      .then((seen) => seen.sort((a, b) => a - b)),
    Array.from({ length: 20 }, (_, i) => i + 1),
    "concurrent increments each see their own number",
  );
  eq(await store.increment(["count", "ttl"], { expireIn: 50 }), 1, "a counted window opens");
  clock += 30;
  eq(await store.increment(["count", "ttl"]), 2, "without expireIn the count keeps its expiry");
  clock += 21;
  eq(await store.get(["count", "ttl"]), undefined, "the count expired with its first deadline");
  eq(await store.increment(["count", "ttl"]), 1, "an expired count starts again");
  clock += 1_000;
  eq(await store.get(["count", "ttl"]), 1, "a count opened without expireIn stays");
  await store.set(["count", "text"], "not a number");
  await assertRejectsOrThrows(() => store.increment(["count", "text"]), TypeError);
  eq(await store.get(["count", "text"]), "not a number", "a refused increment changes nothing");
  await assertRejectsOrThrows(() => store.increment(["count", "a"], { by: 0.5 }), RangeError);
  await assertRejectsOrThrows(
    () => store.increment(["count", "a"], { expireIn: 0 }),
    RangeError,
  );
  checks += 3;
  await assertRejectsOrThrows(() => store.set([], 1), TypeError);
  await assertRejectsOrThrows(() => store.set(["x"], undefined), TypeError);
  await assertRejectsOrThrows(() => store.set(["x"], 1, { expireIn: -1 }), RangeError);
  checks += 3;
  return checks;
}

async function assertRejectsOrThrows(
  fn: () => Promise<unknown>,
  type: typeof TypeError | typeof RangeError,
): Promise<void> {
  let promise: Promise<unknown> | undefined;
  try {
    promise = fn();
  } catch (error) {
    assertThrows(() => {
      throw error;
    }, type);
    return;
  }
  await assertRejects(() => promise!, type);
}

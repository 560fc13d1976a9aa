// Run with --unstable-kv: checks DenoKvStore against the shared contract and prints the count.
import { type DenoKvLike, DenoKvStore } from "../../../src/deno/store/deno_kv_store.ts";
import { checkKeyValueStore } from "../../_helpers/key_value_store_contract.ts";

const stores: DenoKvStore[] = [];
const openKv = (Deno as unknown as { openKv(path: string): Promise<DenoKvLike> }).openKv;
const checks = await checkKeyValueStore(async (now) => {
  const store = new DenoKvStore(await openKv(":memory:"), { now });
  stores.push(store);
  return store;
});
stores.forEach((store) => store.close());
console.log(`checks ${checks}`);

// Two stores on one KV file race for the same 50 single-use keys: each key is won exactly once.
const path = await Deno.makeTempFile({ suffix: ".kv" });
const one = new DenoKvStore(await openKv(path));
const two = new DenoKvStore(await openKv(path));
const claims = await Promise.all(
  Array.from(
    { length: 100 },
    (_, i) => (i % 2 ? one : two).setIfAbsent(["race", String(i >> 1)], i),
  ),
);
one.close();
two.close();
await Deno.remove(path);
console.log(`race ${claims.filter(Boolean).length}`);

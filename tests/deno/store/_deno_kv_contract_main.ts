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

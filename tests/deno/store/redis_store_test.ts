import { assert, assertEquals, assertRejects } from "@std/assert";
import { RedisStore } from "../../../src/deno/store/redis_store.ts";
import { checkKeyValueStore } from "../../_helpers/key_value_store_contract.ts";
import { skipWithoutRedis, startRedis } from "../../_helpers/redis_server.ts";

Deno.test({
  name: "RedisStore keeps the KeyValueStore contract against a real redis-server",
  ignore: skipWithoutRedis(),
  fn: async () => {
    await using server = await startRedis();
    const stores: RedisStore[] = [];
    try {
      const checks = await checkKeyValueStore(async (now) => {
        const store = await RedisStore.connect(server.url, { now });
        stores.push(store);
        return store;
      });
      assert(checks > 15);
    } finally {
      for (const store of stores) await store.close();
    }
  },
});

Deno.test({
  name:
    "RedisStore keys of one prefix are not listed under another, and glob characters match only themselves",
  ignore: skipWithoutRedis(),
  fn: async () => {
    await using server = await startRedis();
    await using one = await RedisStore.connect(server.url, { prefix: "one:" });
    await using two = await RedisStore.connect(server.url, { prefix: "two:" });
    await one.set(["oauth", "tokens", "alice"], "a");
    await two.set(["oauth", "tokens", "bob"], "b");
    assertEquals(await one.list(["oauth"]), [{ key: ["oauth", "tokens", "alice"], value: "a" }]);
    assertEquals(await two.get(["oauth", "tokens", "alice"]), undefined);
    // A user id made of glob characters lists only its own keys, not everyone's.
    await one.set(["pins", "*"], "star");
    await one.set(["pins", "[a]"], "bracket");
    await one.set(["pins", "zed"], "z");
    assertEquals(await one.list(["pins", "*"]), []);
    assertEquals((await one.list(["pins"])).length, 3);
  },
});

Deno.test({
  name: "RedisStore.connect rejects when no server answers",
  ignore: skipWithoutRedis(),
  fn: async () => {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    listener.close();
    await assertRejects(() => RedisStore.connect(`redis://127.0.0.1:${port}`));
  },
});

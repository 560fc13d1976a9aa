import { assert, assertEquals, assertMatch, assertThrows } from "@std/assert";
import { resolve } from "@std/path";
import { Client, StreamableHTTPClientTransport } from "../../../src/core/mcp/mcp_sdk.ts";
import { storeLocation } from "../../../src/deno/cli/store_location.ts";
import { UsageError } from "../../../src/deno/cli/usage_error.ts";
import { RedisStore } from "../../../src/deno/store/redis_store.ts";
import { skipWithoutRedis, startRedis } from "../../_helpers/redis_server.ts";
import { cli, exactFlags, makeFixture, startHttpServe } from "./_serve_process.ts";

Deno.test("--store reads a redis:// or rediss:// URL as a Redis server and anything else as a file", () => {
  assertEquals(storeLocation(undefined), undefined);
  assertEquals(storeLocation("state.db"), { file: resolve("state.db") });
  assertEquals(storeLocation("redis://127.0.0.1"), {
    url: "redis://127.0.0.1",
    host: "127.0.0.1:6379",
    net: "127.0.0.1:6379",
    name: "redis://127.0.0.1:6379",
  });
  const secret = storeLocation("rediss://app:hunter2-secret@cache.example.com:6380/2");
  assertEquals(secret && "host" in secret ? secret.host : undefined, "cache.example.com:6380");
  // A name is looked up before the connection, and Deno checks the lookup without the port.
  assertEquals(secret && "net" in secret ? secret.net : undefined, "cache.example.com");
  const v6 = storeLocation("redis://[::1]:7000");
  assertEquals(v6 && "net" in v6 ? v6.net : undefined, "[::1]:7000");
  // Messages name the server, never its password.
  assert(secret && "name" in secret && !secret.name.includes("hunter2"));
  assertThrows(() => storeLocation("redis://"), UsageError, "Redis");
});

Deno.test("toolroute flags --store redis://… adds the Redis host and the store variables, no file", async () => {
  await using fixture = await makeFixture({ expose: { builtins: ["read_file"] } });
  const flags = await exactFlags(["--config", fixture.config, "--store", "redis://127.0.0.1:7000"]);
  const net = flags.find((flag) => flag.startsWith("--allow-net="));
  assertEquals(net, "--allow-net=127.0.0.1:7000");
  assertMatch(flags.find((flag) => flag.startsWith("--allow-env="))!, /TOOLROUTE_STORE_KEY/);
  assert(!flags.some((flag) => flag.includes("redis:")), flags.join(" "));
});

const LIMITED = {
  expose: { builtins: ["read_file"] },
  policy: { limits: [{ match: "read_file", max: 2, windowMs: 3_600_000 }] },
};

/** Runs `toolroute call read_file` and says whether it ran or was refused by the limit. */
async function call(config: string, store: string): Promise<string> {
  const { code, out } = await cli([
    "call",
    "read_file",
    '{"path":"hello.txt"}',
    "--config",
    config,
    "--store",
    store,
  ]);
  if (code === 0 && out.includes("hello from the workspace")) return "ran";
  assertEquals(code, 1, out);
  assertMatch(out, /limit/i);
  return "rate_limited";
}

Deno.test("toolroute call --store FILE counts policy limits in serve's SQLite store", async () => {
  await using fixture = await makeFixture(LIMITED);
  const store = `${fixture.dir}/state.db`;
  const results = [];
  for (let i = 0; i < 3; i++) results.push(await call(fixture.config, store));
  assertEquals(results, ["ran", "ran", "rate_limited"]);
  // Without the store each call is a fresh process's count: it runs.
  assertEquals(
    (await cli(["call", "read_file", '{"path":"hello.txt"}', "--config", fixture.config])).code,
    0,
  );
});

/** One `read_file` call through a running `serve --http`, as a client makes it. */
async function readThroughServe(
  serve: { url: string; auth: { requestInit: { headers: Record<string, string> } } },
): Promise<void> {
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(serve.url), serve.auth));
  try {
    const served = await client.callTool({
      name: "read_file",
      arguments: { path: "hello.txt" },
    }) as { isError?: boolean; content: { text: string }[] };
    assertMatch(served.content[0].text, /hello from the workspace/);
  } finally {
    await client.close();
  }
}

Deno.test({
  name: "serve --store redis://… and toolroute call --store redis://… share one limit in Redis",
  ignore: skipWithoutRedis(),
  fn: async () => {
    await using redis = await startRedis();
    await using fixture = await makeFixture(LIMITED);
    const args = ["--config", fixture.config, "--store", redis.url];
    const flags = await exactFlags([...args, "--http", "127.0.0.1:0"]);
    await using serve = await startHttpServe(flags, args);
    await readThroughServe(serve);
    // serve counted its call in Redis: the call command gets the one call left, then the limit.
    assertEquals([await call(fixture.config, redis.url), await call(fixture.config, redis.url)], [
      "ran",
      "rate_limited",
    ]);
    await using store = await RedisStore.connect(redis.url);
    const counts = await store.list<number>(["limits"]);
    // One count in Redis for both processes: serve's call, the call command's, and the refused one.
    assertEquals(counts.map((entry) => entry.value), [3]);
    assertEquals(await serve.stop(), 0);
    assertMatch(serve.stderr(), /unencrypted in redis:\/\/127\.0\.0\.1:\d+/);
  },
});

Deno.test({
  name:
    "serve --store redis://localhost:PORT (a host name, not an address) runs with exactly the printed flags",
  ignore: skipWithoutRedis(),
  fn: async () => {
    await using redis = await startRedis();
    await using fixture = await makeFixture(LIMITED);
    // The Redis client looks a name up before it connects: the printed flags must allow that.
    const url = redis.url.replace("127.0.0.1", "localhost");
    assert(url.startsWith("redis://localhost:"), url);
    const args = ["--config", fixture.config, "--store", url];
    const flags = await exactFlags([...args, "--http", "127.0.0.1:0"]);
    await using serve = await startHttpServe(flags, args);
    await readThroughServe(serve);
    // serve really used that server: its call was counted there.
    await using store = await RedisStore.connect(redis.url);
    assertEquals((await store.list<number>(["limits"])).map((entry) => entry.value), [1]);
    assertEquals(await serve.stop(), 0);
  },
});

Deno.test({
  name:
    "toolroute call --store with a Redis server that does not answer is a usage error naming it",
  ignore: skipWithoutRedis(),
  fn: async () => {
    await using fixture = await makeFixture(LIMITED);
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    listener.close();
    const { code, err } = await cli([
      "call",
      "read_file",
      "{}",
      "--config",
      fixture.config,
      "--store",
      `redis://user:hunter2-secret@127.0.0.1:${port}`,
    ]);
    assertEquals(code, 2);
    assertMatch(err, /Cannot reach the Redis store redis:\/\/127\.0\.0\.1/);
    assert(!err.includes("hunter2"), err);
  },
});

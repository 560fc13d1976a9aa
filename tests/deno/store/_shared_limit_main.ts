// One of several processes racing for one shared limit. Args: STORE CALLS MAX, where STORE is
// "sqlite:PATH", "kv:PATH" (run with --unstable-kv) or "redis:URL". Prints
// "attempts N admitted N ran N limited N" on one line.
import { z } from "zod";
import { defineTool, ToolRouter } from "../../../mod.ts";
import type { KeyValueStore } from "../../../src/core/stores.ts";
import { SqliteStore } from "../../../src/deno/store/sqlite_store.ts";
import { type DenoKvLike, DenoKvStore } from "../../../src/deno/store/deno_kv_store.ts";
import { RedisStore } from "../../../src/deno/store/redis_store.ts";

const [spec, calls, max] = [Deno.args[0], Number(Deno.args[1]), Number(Deno.args[2])];
const colon = spec.indexOf(":");
const kind = spec.slice(0, colon);
const where = spec.slice(colon + 1);
let store: KeyValueStore & { close(): void | Promise<void> };
// The race checks that no count is lost, not how long a writer waits: on a loaded machine (two
// shared cores beside other test runs) a writer once waited past the default 5 s busy timeout, and
// that call failed closed as the store's failure, which is right for a host and no lost update.
if (kind === "sqlite") store = new SqliteStore(where, { busyTimeoutMs: 120_000 });
else if (kind === "kv") {
  const openKv = (Deno as unknown as { openKv(path: string): Promise<DenoKvLike> }).openKv;
  store = new DenoKvStore(await openKv(where));
} else store = await RedisStore.connect(where);

let ran = 0;
const send = defineTool({
  name: "send_email",
  description: "Sends",
  input: z.object({}),
  run: () => {
    ran++;
    return "sent";
  },
});
const router = new ToolRouter({
  functions: [send],
  store,
  // A budget of one run that every process names, not a window: a window is cut by the wall clock,
  // and a race that spans a window's end counts in two windows (up to twice the limit, as
  // documented), which is no lost update. The count is the same store increment either way.
  policy: { limits: [{ match: "send_email", max, per: "router" }] },
});
const tools = await router.expose({ functions: ["send_email"], userId: `pid-${Deno.pid}` });
let admitted = 0;
let limited = 0;
let attempts = 0;
// 32 calls in flight at once, so calls race within the process as well as across processes.
await Promise.all(Array.from({ length: 32 }, async () => {
  while (attempts < calls) {
    attempts++;
    const result = await tools.call("send_email", {}, { runId: "shared-limit-race" });
    if (!result.isError) admitted++;
    else if (result.code === "rate_limited") limited++;
    else throw new Error(`unexpected result: ${result.text}`);
  }
}));
await store.close();
console.log(`attempts ${attempts} admitted ${admitted} ran ${ran} limited ${limited}`);

import { assert, assertEquals, assertMatch, assertRejects } from "@std/assert";
import { DenoKvStore } from "../../../src/deno/store/deno_kv_store.ts";

const MAIN = new URL("./_deno_kv_contract_main.ts", import.meta.url);

Deno.test("DenoKvStore keeps the KeyValueStore contract (in a child run with --unstable-kv)", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", "--unstable-kv", "--allow-read", "--allow-write", MAIN.href],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  assertEquals(out.code, 0, new TextDecoder().decode(out.stderr));
  const checks = Number(/checks (\d+)/.exec(text)?.[1]);
  assert(checks > 15, text);
  // Two stores on one KV file racing for 50 keys (100 claims): every key won exactly once.
  assertEquals(Number(/race (\d+)/.exec(text)?.[1]), 50, text);
});

Deno.test("DenoKvStore.open names the flag when Deno KV is not enabled", async () => {
  // This test process runs without --unstable-kv.
  const error = await assertRejects(() => DenoKvStore.open(), TypeError);
  assertMatch(error.message, /--unstable-kv/);
});

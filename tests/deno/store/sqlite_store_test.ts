import { assert, assertEquals } from "@std/assert";
import { SqliteStore } from "../../../src/deno/store/sqlite_store.ts";
import { MemoryStore } from "../../../src/core/store/memory_store.ts";
import { checkKeyValueStore } from "../../_helpers/key_value_store_contract.ts";

Deno.test("SqliteStore keeps the KeyValueStore contract", async () => {
  const dir = await Deno.makeTempDir();
  const stores: SqliteStore[] = [];
  try {
    const checks = await checkKeyValueStore((now) => {
      const store = new SqliteStore(`${dir}/kv.db`, { now });
      stores.push(store);
      return store;
    });
    assert(checks > 15);
  } finally {
    stores.forEach((store) => store.close());
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("MemoryStore keeps the same KeyValueStore contract", async () => {
  assert(await checkKeyValueStore((now) => new MemoryStore({ now })) > 15);
});

Deno.test("SqliteStore keeps values across reopening the file", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const first = new SqliteStore(`${dir}/kv.db`);
    await first.set(["pins", "global", "docs", "search"], { hash: "sha256-1" });
    first.close();
    using second = new SqliteStore(`${dir}/kv.db`);
    assertEquals(await second.get(["pins", "global", "docs", "search"]), { hash: "sha256-1" });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("SqliteStore makes setIfAbsent atomic across processes: one claim of many wins", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/kv.db`;
  new SqliteStore(path).close();
  const script = `
    import { SqliteStore } from ${
    JSON.stringify(new URL("../../../src/deno/store/sqlite_store.ts", import.meta.url).href)
  };
    const store = new SqliteStore(${JSON.stringify(path)});
    let won = 0;
    for (let i = 0; i < 50; i++) if (await store.setIfAbsent(["claim", String(i)], Deno.pid)) won++;
    store.close();
    console.log(won);
  `;
  try {
    const runs = await Promise.all(
      [0, 1, 2].map(() =>
        new Deno.Command(Deno.execPath(), {
          args: [
            "run",
            "--no-prompt",
            `--allow-read=${dir},${Deno.cwd()}`,
            `--allow-write=${dir}`,
            "-",
          ],
          stdin: "piped",
          stdout: "piped",
          stderr: "piped",
        }).spawn()
      ).map(async (child) => {
        const writer = child.stdin.getWriter();
        await writer.write(new TextEncoder().encode(script));
        await writer.close();
        const out = await child.output();
        assertEquals(out.code, 0, new TextDecoder().decode(out.stderr));
        return Number(new TextDecoder().decode(out.stdout).trim());
      }),
    );
    // Every claim was made by three processes and won by exactly one.
    assertEquals(runs.reduce((a, b) => a + b, 0), 50);
    using store = new SqliteStore(path);
    assertEquals((await store.list(["claim"])).length, 50);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

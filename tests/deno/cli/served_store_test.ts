import { assert, assertEquals, assertThrows } from "@std/assert";
import { servedStore } from "../../../src/deno/cli/served_store.ts";
import { SqliteStore } from "../../../src/deno/store/sqlite_store.ts";
import { UsageError } from "../../../src/deno/cli/usage_error.ts";

const TOKEN = "ya29.a0-secret-access-token-0123456789";

async function fileHolds(path: string, text: string): Promise<boolean> {
  // The database and its write-ahead log: what a reader of the disk gets.
  let bytes = "";
  for (const file of [path, `${path}-wal`]) {
    try {
      bytes += new TextDecoder("latin1").decode(await Deno.readFile(file));
    } catch {
      // No such file.
    }
  }
  return bytes.includes(text);
}

Deno.test("serve --store without TOOLROUTE_STORE_KEY stores secrets plain and warns once, on the first secret", async () => {
  const dir = await Deno.makeTempDir();
  try {
    using sqlite = new SqliteStore(`${dir}/state.db`);
    const warnings: string[] = [];
    const store = servedStore(sqlite, {
      name: '"state.db"',
      warn: (line) => warnings.push(line),
      env: () => undefined,
    });
    await store.set(["pins", "global", "docs", "search"], { hash: "h" });
    assertEquals(warnings, [], "pins are not secrets");
    await store.set(["oauth", "tokens", "alice", "docs"], { access_token: TOKEN });
    await store.setIfAbsent(["approvals", "used", "a1"], true);
    assertEquals(warnings.length, 1);
    assert(warnings[0].includes("TOOLROUTE_STORE_KEY"), warnings[0]);
    // The baseline the key protects against: the token is readable in the file.
    assert(await fileHolds(`${dir}/state.db`, TOKEN));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("serve --store with TOOLROUTE_STORE_KEY seals secrets: the file never holds the token", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const key = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
    const warnings: string[] = [];
    {
      using sqlite = new SqliteStore(`${dir}/state.db`);
      const store = servedStore(sqlite, {
        name: '"state.db"',
        warn: (line) => warnings.push(line),
        env: (name) => name === "TOOLROUTE_STORE_KEY" ? key : undefined,
      });
      await store.set(["oauth", "tokens", "alice", "docs"], { access_token: TOKEN });
      assertEquals(await store.get(["oauth", "tokens", "alice", "docs"]), { access_token: TOKEN });
    }
    assertEquals(warnings, []);
    assert(!(await fileHolds(`${dir}/state.db`, TOKEN)), "the token is not on disk in plain");
    // The next serve process with the same key reads it back.
    using again = new SqliteStore(`${dir}/state.db`);
    const store = servedStore(again, { name: "x", warn: () => {}, env: () => key });
    assertEquals(await store.get(["oauth", "tokens", "alice", "docs"]), { access_token: TOKEN });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a TOOLROUTE_STORE_KEY that is not 32 bytes of base64 is a usage error", () => {
  const sqlite = new SqliteStore(":memory:");
  try {
    assertThrows(
      () => servedStore(sqlite, { name: "x", warn: () => {}, env: () => "hunter2" }),
      UsageError,
      "TOOLROUTE_STORE_KEY",
    );
  } finally {
    sqlite.close();
  }
});

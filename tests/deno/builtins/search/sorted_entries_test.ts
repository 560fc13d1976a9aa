import { assert, assertEquals } from "@std/assert";
import { byName, sortedEntries } from "../../../../src/deno/builtins/search/sorted_entries.ts";
import type { TreeEntry } from "../../../../src/deno/builtins/search/walk_tree.ts";

Deno.test("sortedEntries orders as one sort by name does, pausing between steps of a large folder", async () => {
  const names = ["", "a", "B", "b", "a b", "ä", "\u{1F600}", "\uFFFD", "a.ts", "a-ts", "10", "9"];
  for (const size of [0, 1, 7, 512, 513, 1500, 5000]) {
    const entries: TreeEntry[] = [];
    for (let i = 0; i < size; i++) {
      entries.push({ name: `${names[i % names.length]}${(i * 7919) % size}`, kind: "file" });
    }
    const before = entries.slice();
    let pauses = 0;
    const sorted = await sortedEntries(entries, () => {
      pauses++;
      return Promise.resolve();
    });
    assertEquals(sorted, entries.slice().sort(byName), `${size} entries`);
    assertEquals(entries, before, "the entries are left as they are");
    if (size > 2048) assert(pauses > size / 1024, `${pauses} pauses for ${size} entries`);
  }
});

Deno.test("sortedEntries keeps the order of equal names (a listing that repeats one)", async () => {
  const entries: TreeEntry[] = [];
  for (let i = 0; i < 3000; i++) entries.push({ name: `n${i % 3}`, kind: i % 2 ? "dir" : "file" });
  const sorted = await sortedEntries(entries, () => Promise.resolve());
  assertEquals(sorted, entries.slice().sort(byName));
});

import { assertEquals } from "@std/assert";
import { deferredLines } from "../../../src/deno/cli/deferred_lines.ts";

Deno.test("deferredLines() writes the lines of one task after it, in order, in one write", async () => {
  const writes: string[] = [];
  const log = deferredLines((lines) => writes.push(lines));
  log.push("first");
  log.push("second");
  await Promise.resolve(); // microtasks (an answer's write) run before the lines
  assertEquals(writes, []);
  await new Promise((resolve) => setTimeout(resolve, 0));
  assertEquals(writes, ["first\nsecond"]);
  log.push("third");
  await new Promise((resolve) => setTimeout(resolve, 0));
  assertEquals(writes, ["first\nsecond", "third"]);
});

Deno.test("deferredLines() flush() writes what is queued at once and nothing twice", async () => {
  const writes: string[] = [];
  const log = deferredLines((lines) => writes.push(lines));
  log.flush(); // nothing queued: no write
  log.push("last");
  log.flush();
  assertEquals(writes, ["last"]);
  await new Promise((resolve) => setTimeout(resolve, 5));
  assertEquals(writes, ["last"]);
});

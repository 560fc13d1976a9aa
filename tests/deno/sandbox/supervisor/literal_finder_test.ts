import { assertEquals, assertThrows } from "@std/assert";
import { LiteralFinder } from "../../../../src/deno/sandbox/supervisor/literal_finder.ts";

const containsBytes = (data: Uint8Array, needle: Uint8Array) =>
  new LiteralFinder(needle).contains(data);

Deno.test("LiteralFinder#contains() finds a sequence anywhere, including at the very end", () => {
  const bytes = new TextEncoder().encode("xxabxabc");
  assertEquals(containsBytes(bytes, new TextEncoder().encode("abc")), true);
  assertEquals(containsBytes(bytes, new TextEncoder().encode("abd")), false);
  assertEquals(containsBytes(bytes, new TextEncoder().encode("cx")), false);
  const code = new TextEncoder().encode('const x = "needle42";');
  assertEquals(containsBytes(code, new TextEncoder().encode("needle42")), true);
  assertEquals(containsBytes(code, new TextEncoder().encode("const")), true);
  assertEquals(containsBytes(code, new TextEncoder().encode('42";')), true);
  assertEquals(containsBytes(code, new TextEncoder().encode("needle43")), false);
  assertEquals(containsBytes(code, new TextEncoder().encode("4")), true);
});

Deno.test("LiteralFinder learns the rarest byte from the files it searches and still finds every occurrence", () => {
  const encode = (text: string) => new TextEncoder().encode(text);
  const finder = new LiteralFinder(encode("EXIT_FAILURE"));
  // C headers: capital X is everywhere, F rarer; the finder must find the literal either way.
  const header = encode("#define XX_X 1\n#define XXX 2\n".repeat(200));
  assertEquals(finder.contains(header), false);
  assertEquals(finder.contains(encode("XXXX return EXIT_FAILURE;")), true);
  assertEquals(finder.contains(encode("EXIT_FAILUR")), false);
  assertEquals(finder.contains(encode("EXIT_FAILURE")), true);
  assertEquals(finder.contains(encode("FFFFEXIT_FAILURE")), true);
  assertThrows(() => new LiteralFinder(new Uint8Array()), RangeError);
});

Deno.test("LiteralFinder.containsPaused() finds a sequence across its windows and pauses between them", async () => {
  const encode = (text: string) => new TextEncoder().encode(text);
  // A needle of 1000 bytes (windows of 16 Ki): one match across the third window's start, at
  // 32 268, found in the second window (which reaches 999 bytes into the third).
  const needle = "ab".repeat(499) + "ad";
  const near = "ab".repeat(499) + "ac"; // every b nearly matches: the worst case, by windows
  const finder = new LiteralFinder(encode(needle));
  const text = near.repeat(32) + "x".repeat(268) + needle + near.repeat(40);
  let pauses = 0;
  const pause = () => {
    pauses++;
    return false;
  };
  assertEquals(await finder.containsPaused(encode(text), pause), true);
  assertEquals(pauses, 1);
  assertEquals(await finder.containsPaused(encode(near.repeat(100)), pause), false);
  // Giving up at a pause answers false.
  assertEquals(await finder.containsPaused(encode(text), () => true), false);
});

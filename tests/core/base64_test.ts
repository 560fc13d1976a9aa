import { assertEquals, assertThrows } from "@std/assert";
import { decodeBase64, encodeBase64 } from "../../src/core/base64.ts";

type Native = { toBase64?: unknown; fromBase64?: unknown };

/** Runs `fn` as on a runtime without ES2026's base64 (the `atob`/`btoa` way). */
function withoutNative<T>(fn: () => T): T {
  const proto = Uint8Array.prototype as Native;
  const ctor = Uint8Array as Native;
  const saved = [proto.toBase64, ctor.fromBase64];
  delete proto.toBase64;
  delete ctor.fromBase64;
  try {
    return fn();
  } finally {
    [proto.toBase64, ctor.fromBase64] = saved;
  }
}

Deno.test("encodeBase64() and decodeBase64() agree with and without the runtime's own base64, in both alphabets", () => {
  assertEquals(typeof (Uint8Array.prototype as Native).toBase64, "function", "Deno has it");
  for (const size of [0, 1, 2, 3, 32, 100_000]) {
    const bytes = new Uint8Array(size).map((_, i) => (i * 7919) % 256);
    for (const url of [false, true]) {
      const fast = encodeBase64(bytes, { url });
      const slow = withoutNative(() => encodeBase64(bytes, { url }));
      assertEquals(slow, fast);
      assertEquals(decodeBase64(fast, { url }), bytes);
      assertEquals(withoutNative(() => decodeBase64(fast, { url })), bytes);
    }
  }
  assertEquals(encodeBase64(new Uint8Array([251, 255]), { url: true }), "-_8");
  assertEquals(encodeBase64(new Uint8Array([251, 255])), "+/8=");
});

Deno.test("decodeBase64() throws on a character outside the alphabet", () => {
  assertThrows(() => decodeBase64("ab!d"));
  assertThrows(() => withoutNative(() => decodeBase64("ab!d")));
  assertThrows(() => decodeBase64("ab+d", { url: true }));
});

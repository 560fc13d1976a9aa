import { assertEquals } from "@std/assert";
import { sha256Hex } from "../../src/core/sha256_hex.ts";

Deno.test("sha256Hex() agrees with WebCrypto on texts around the block boundaries", async () => {
  let checked = 0;
  for (const length of [0, 1, 3, 55, 56, 63, 64, 65, 119, 120, 1000]) {
    const text = "é".repeat(length >> 1) + "a".repeat(length & 1);
    const digest = new Uint8Array(
      await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)),
    );
    const expected = [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
    assertEquals(sha256Hex(text), expected, `length ${length}`);
    checked++;
  }
  assertEquals(
    sha256Hex("abc"),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
  assertEquals(checked, 11);
});

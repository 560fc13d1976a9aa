/**
 * Probe (not named `*_test.ts`): run with
 * `deno test --no-prompt -A tests/_attacks/frame_reader_reused_buffer_attack.ts`.
 *
 * The host reads the supervisor's answers into one reused buffer (byob) and hands each chunk to
 * `FrameReader.push`. A supervisor under a command's control picks the split points: frames cut
 * anywhere (in the lengths, the JSON, the body), many frames per chunk, empty bodies, bodies
 * that look like frames. After each push the buffer is overwritten with garbage, as the next
 * read would: a frame that kept a view into it would show the garbage. Held on a0d8c6b.
 *
 * @module
 */
import { assertEquals, assertThrows } from "@std/assert";
import { encodeFrame, FrameReader, MAX_FRAME_BODY } from "../../src/deno/sandbox/protocol.ts";

Deno.test("frames split anywhere and read through one reused buffer come out whole and unchanged", () => {
  let seed = 7;
  const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
  let frames = 0;
  for (let round = 0; round < 300; round++) {
    const sent = Array.from({ length: 1 + random(6) }, (_, i) => {
      const body = new Uint8Array(random(3) === 0 ? 0 : random(70_000));
      for (let k = 0; k < body.length; k += 97) body[k] = (k + i) & 255;
      if (body.length > 16) body.set(encodeFrame({ id: 99, fake: true }).subarray(0, 16), 0);
      return { header: { id: i, text: "é😀\u2028".repeat(random(50)) }, body };
    });
    const bytes = new Uint8Array(
      sent.reduce((sum, f) => sum + encodeFrame(f.header, f.body).length, 0),
    );
    let at = 0;
    for (const f of sent) {
      const e = encodeFrame(f.header, f.body);
      bytes.set(e, at);
      at += e.length;
    }
    const reader = new FrameReader();
    const shared = new Uint8Array(1 << 16);
    const got: { header: Record<string, unknown>; body: Uint8Array }[] = [];
    for (let from = 0; from < bytes.length;) {
      const size = Math.min(bytes.length - from, 1 + random(random(2) ? 9 : shared.length));
      shared.set(bytes.subarray(from, from + size));
      got.push(...reader.push(shared.subarray(0, size)));
      shared.fill(0xee);
      from += size;
    }
    assertEquals(got.length, sent.length);
    for (let i = 0; i < sent.length; i++) {
      assertEquals(got[i].header, sent[i].header);
      assertEquals(got[i].body, sent[i].body);
      frames++;
    }
  }
  console.log(`${frames} frames checked`);
  // Over the limit: refused from the lengths alone, before any body is buffered.
  const over = new Uint8Array(8);
  new DataView(over.buffer).setUint32(4, MAX_FRAME_BODY + 1);
  assertThrows(() => new FrameReader().push(over), RangeError);
  const array = encodeFrame({});
  array.set(new TextEncoder().encode("[]"), 8);
  assertThrows(() => new FrameReader().push(array), SyntaxError);
});

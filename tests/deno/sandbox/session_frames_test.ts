import { assertEquals, assertThrows } from "@std/assert";
import {
  encodeFrame,
  FrameReader,
  MAX_FRAME_BODY,
} from "../../../src/deno/sandbox/session_frames.ts";

Deno.test("FrameReader push() returns frames whole when the same buffer is read into again and again, split anywhere", () => {
  const frames = [
    encodeFrame({ id: 1, ok: {} }),
    encodeFrame({ id: 2, ok: { eof: true } }, new TextEncoder().encode("hello")),
    encodeFrame({ id: 3, ok: {} }, new Uint8Array(70_000).map((_, i) => i % 251)),
    encodeFrame({ id: 4, error: { name: "NotFound", message: "gone" } }),
  ];
  const stream = new Uint8Array(frames.reduce((sum, frame) => sum + frame.length, 0));
  let at = 0;
  for (const frame of frames) stream.set(frame, at), at += frame.length;
  for (const size of [1, 3, 8, 13, 4096, 65_536, stream.length]) {
    const reader = new FrameReader();
    // One buffer, overwritten by every "read", as the session's byob reader does.
    const buffer = new Uint8Array(size);
    const got: { id: unknown; body: Uint8Array }[] = [];
    for (let from = 0; from < stream.length; from += size) {
      const chunk = stream.subarray(from, from + size);
      buffer.set(chunk);
      for (const frame of reader.push(buffer.subarray(0, chunk.length))) {
        got.push({ id: frame.header.id, body: frame.body });
      }
      buffer.fill(0xee);
    }
    assertEquals(got.map((frame) => frame.id), [1, 2, 3, 4], `chunks of ${size}`);
    assertEquals(new TextDecoder().decode(got[1].body), "hello", `chunks of ${size}`);
    assertEquals(got[2].body, new Uint8Array(70_000).map((_, i) => i % 251), `chunks of ${size}`);
  }
});

Deno.test("FrameReader push() refuses a frame over the limits and a JSON part that is not an object", () => {
  const over = new Uint8Array(8);
  new DataView(over.buffer).setUint32(4, MAX_FRAME_BODY + 1);
  assertThrows(() => new FrameReader().push(over), RangeError, "over the limit");
  const array = new TextEncoder().encode("[1]");
  const frame = new Uint8Array(8 + array.length);
  new DataView(frame.buffer).setUint32(0, array.length);
  frame.set(array, 8);
  assertThrows(() => new FrameReader().push(frame), SyntaxError, "not an object");
});

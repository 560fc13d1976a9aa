import { assertEquals, assertStringIncludes, assertThrows } from "@std/assert";
import {
  encodeFrame,
  FrameReader,
  MAX_FRAME_BODY,
  parseFinalAnswer,
} from "../../../src/deno/sandbox/protocol.ts";

const info = {
  isFile: true,
  isDirectory: false,
  isSymlink: false,
  isFifo: false,
  isDevice: false,
  isSocket: false,
  size: 3,
  mode: 0o644,
  dev: 1,
  ino: 2,
};

Deno.test("parseFinalAnswer() takes each operation's answer of its own shape and drops extra fields", () => {
  assertEquals(parseFinalAnswer("stat", { id: 1, ok: { info: { ...info, nlink: 1 } } }), {
    ok: { info },
  });
  assertEquals(parseFinalAnswer("open", { ok: { handle: null, info } }), {
    ok: { handle: null, info },
  });
  assertEquals(parseFinalAnswer("exec", { exit: { code: 0, timedOut: false, cancelled: false } }), {
    exit: { code: 0, timedOut: false, cancelled: false },
  });
  assertEquals(parseFinalAnswer("read", { error: { name: "NotFound", message: "gone" } }), {
    error: { name: "NotFound", message: "gone" },
  });
  assertEquals(parseFinalAnswer("grep", { ok: { stopped: null, more: 4 } }), {
    ok: { stopped: null, more: 4 },
  });
});

Deno.test("parseFinalAnswer() refuses what a hostile supervisor could send instead", () => {
  const refused: [Parameters<typeof parseFinalAnswer>[0], Record<string, unknown>][] = [
    ["stat", { ok: { info: { ...info, size: -1 } } }],
    ["stat", { ok: { info: { ...info, isFile: "yes" } } }],
    ["stat", { ok: {} }],
    ["open", { ok: { handle: 1.5, info, eof: true } }],
    ["open", { ok: { handle: 1, info } }],
    ["readDir", {
      ok: { entries: [{ name: "../etc", isFile: true, isDirectory: false, isSymlink: false }] },
    }],
    ["readDir", {
      ok: { entries: [{ name: "a/b", isFile: true, isDirectory: false, isSymlink: false }] },
    }],
    ["readDir", {
      ok: { entries: [{ name: "..", isFile: false, isDirectory: true, isSymlink: false }] },
    }],
    ["readDir", { ok: { entries: "x" } }],
    ["put", { ok: { written: "true", before: null } }],
    ["grep", { ok: { stopped: "maybe", more: null } }],
    ["grep", { ok: { stopped: null, more: -1 } }],
    ["exec", { exit: { code: "0", timedOut: false, cancelled: false } }],
    ["exec", { ok: {} }],
    ["spawn", { exit: null }],
    ["stat", { exit: { code: 0, timedOut: false, cancelled: false } }],
    ["mkdir", { error: null }],
    ["mkdir", { error: 42 }],
    ["mkdir", { error: { name: "Error", message: 7 } }],
    ["mkdir", {}],
  ];
  for (const [op, header] of refused) {
    const answer = parseFinalAnswer(op, header);
    assertEquals(typeof answer, "string", `${op} ${JSON.stringify(header)}`);
  }
  for (const op of ["nope", "constructor", "__proto__", "toString"]) {
    assertStringIncludes(
      parseFinalAnswer(op as "ping", { ok: {} }) as string,
      "unknown operation",
    );
  }
});

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

import { assertEquals, assertStringIncludes } from "@std/assert";
import { parseFinalAnswer } from "../../../src/deno/sandbox/protocol.ts";

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

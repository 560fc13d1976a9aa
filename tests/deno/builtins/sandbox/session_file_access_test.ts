import { assertEquals, assertRejects } from "@std/assert";
import { ToolError } from "@toolroute/toolroute";
import { resolveBuiltinContext } from "../../../../src/deno/builtins/builtin_context.ts";
import type { PutExpectation } from "../../../../src/deno/builtins/files/file_access.ts";
import type { SandboxSessions } from "../../../../src/deno/builtins/sandbox/sandbox_sessions.ts";
import { parseFinalAnswer } from "../../../../src/deno/sandbox/protocol.ts";
import { sessionFileAccess } from "../../../../src/deno/builtins/sandbox/session_file_access.ts";

const stat = (kind: "isFile" | "isDirectory", extra: Record<string, unknown> = {}) => ({
  isFile: false,
  isDirectory: false,
  isSymlink: false,
  isFifo: false,
  isDevice: false,
  isSocket: false,
  size: 3,
  mode: 0o100644,
  dev: 1,
  ino: 2,
  [kind]: true,
  ...extra,
});
const FILE = stat("isFile");
const DIR = stat("isDirectory");

/** Sessions whose one session answers every request with `ok`, and records what it was asked. */
function fakeSessions(ok: unknown) {
  const state = { ended: false, asked: [] as Record<string, unknown>[] };
  const session = {
    get ended() {
      return state.ended;
    },
    fail(why: string) {
      state.ended = true;
      return new ToolError("tool_error", `out of protocol (${why})`);
    },
    notify() {},
    // Validated as the real session's `request` does.
    request(header: Record<string, unknown>) {
      state.asked.push(header);
      const answer = parseFinalAnswer(header.op as "put", { ok });
      if (typeof answer === "string") return Promise.reject(session.fail(answer));
      return Promise.resolve({ header: answer, body: new Uint8Array() });
    },
  };
  const sessions = {
    acquire: () => Promise.resolve({ session, release: () => {} }),
  } as unknown as SandboxSessions;
  return { sessions, state };
}

const ctx = resolveBuiltinContext({ workspace: "/w", bash: { sandbox: "bwrap" } });
const target = { real: "/w/a.txt", display: "a.txt", root: "/w" };
const put = (ok: unknown, expect?: PutExpectation) => {
  const fake = fakeSessions(ok);
  const done = sessionFileAccess(ctx, fake.sessions).put(target, new Uint8Array([1]), {
    shown: "a.txt",
    expect,
  });
  return { done, state: fake.state };
};

Deno.test("sessionFileAccess put() asks once and returns what the supervisor saw and did", async () => {
  const replaced = put({ written: true, before: FILE }, "file-or-absent");
  assertEquals(await replaced.done, { written: true, before: { ...FILE } });
  assertEquals(replaced.state.asked.length, 1);
  assertEquals(replaced.state.asked[0].op, "put");
  assertEquals(replaced.state.asked[0].expect, "file-or-absent");
  assertEquals(replaced.state.asked[0].to, "/w/a.txt");
  assertEquals(await put({ written: false, before: DIR }, "file-or-absent").done, {
    written: false,
    before: { ...DIR },
  });
  assertEquals(await put({ written: false, before: FILE }, "absent").done, {
    written: false,
    before: { ...FILE },
  });
  assertEquals(await put({ written: true, before: null }, "absent").done, {
    written: true,
    before: undefined,
  });
  const plain = put({ written: true, before: null });
  assertEquals(await plain.done, { written: true, before: undefined });
  assertEquals(plain.state.asked[0].expect, null);
});

Deno.test("sessionFileAccess put() ends the session on an answer that does not fit what it saw", async () => {
  const lies: [ok: unknown, expect?: PutExpectation][] = [
    // Not well-formed.
    [{}],
    [{}, "absent"],
    [{ written: "yes", before: null }, "absent"],
    [{ written: true }, "absent"],
    [{ written: true, before: 7 }, "file-or-absent"],
    [{ written: true, before: { isFile: true } }, "file-or-absent"],
    [{ written: true, before: stat("isFile", { size: -1 }) }, "file-or-absent"],
    [{ written: true, before: stat("isFile", { mode: "0644" }) }, "file-or-absent"],
    // Well-formed, but not what it says it saw.
    [{ written: false, before: null }, "file-or-absent"],
    [{ written: false, before: null }, "absent"],
    [{ written: true, before: DIR }, "file-or-absent"],
    [{ written: false, before: FILE }, "file-or-absent"],
    [{ written: true, before: FILE }, "absent"],
    // Without expect, there is nothing to refuse and nothing to look at.
    [{ written: false, before: null }],
    [{ written: true, before: FILE }],
  ];
  for (const [ok, expect] of lies) {
    const { done, state } = put(ok, expect);
    await assertRejects(() => done, ToolError, "out of protocol", JSON.stringify([ok, expect]));
    assertEquals(state.ended, true, JSON.stringify(ok));
  }
});

import { testSession } from "../_test_session.ts";
import { assert, assertEquals } from "@std/assert";
import type { SandboxSession } from "../../../../src/deno/sandbox/sandbox_session.ts";
import type { SessionFrame } from "../../../../src/deno/sandbox/protocol.ts";
import { skipWithoutBwrap } from "../../../_helpers/bwrap.ts";

const options = { timeoutMs: 10_000, onTimeout: () => new Error("timeout") as never };

/** Bytes that differ at every offset, so that a lost or moved chunk shows. */
function pattern(length: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = (i * 31 + seed * 7 + (i >> 8)) & 0xff;
  return bytes;
}

/** Writes `data` to `path` with one `create` and reads it back with `open` and `read`. */
async function roundTrip(session: SandboxSession, path: string, data: Uint8Array) {
  const created = await session.request({ op: "create", path, mode: null }, data, options);
  assert(created.header.ok !== undefined, JSON.stringify(created.header));
  const parts: Uint8Array[] = [];
  let answer: SessionFrame = await session.request(
    { op: "open", path, prefetch: 64 * 1024 },
    undefined,
    options,
  );
  const ok = answer.header.ok as { handle: number; eof: boolean };
  parts.push(answer.body);
  let eof = ok.eof;
  while (!eof) {
    answer = await session.request({ op: "read", handle: ok.handle, length: 1 << 20 }, undefined, {
      ...options,
    });
    parts.push(answer.body);
    eof = (answer.header.ok as { eof: boolean }).eof;
  }
  const read = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) read.set(part, at), at += part.length;
  assertEquals(read.length, data.length, path);
  assert(read.every((byte, i) => byte === data[i]), `${path} came back changed`);
}

Deno.test({
  name:
    "the supervisor serves every request whole and in order, idle (input read on its main thread), while a command runs (read through the thread pool) and after",
  ignore: skipWithoutBwrap(),
  async fn() {
    const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_sup_" }));
    const session = await testSession(workspace);
    // Bodies larger than one read of the supervisor (64 KiB), and many small requests sent at
    // once: frames span reads, and reads carry several frames.
    const sizes = [0, 5, 65_535, 65_536, 200_001];
    const burst = async (phase: string) => {
      const pings = await Promise.all(
        Array.from({ length: 50 }, () => session.request({ op: "ping" }, undefined, options)),
      );
      assert(pings.every((answer) => answer.header.ok !== undefined), phase);
      await Promise.all(
        sizes.map((size, i) =>
          roundTrip(session, `${workspace}/${phase}-${i}`, pattern(size, i + phase.length))
        ),
      );
    };
    try {
      await burst("idle");
      const command = session.request(
        {
          op: "exec",
          command: "sleep 0.5; echo done",
          prefix: "",
          cwd: workspace,
          env: { PATH: "/usr/bin:/bin" },
          timeoutMs: 10_000,
        },
        undefined,
        { ...options, onStream: () => {} },
      );
      await burst("running");
      assertEquals((await command).header.exit, {
        code: 0,
        timedOut: false,
        cancelled: false,
      });
      await burst("after");
      for (let i = 0; i < 20; i++) {
        await roundTrip(session, `${workspace}/one-${i}`, pattern(i * 997, i));
      }
    } finally {
      await session.close();
      await Deno.remove(workspace, { recursive: true });
    }
  },
});

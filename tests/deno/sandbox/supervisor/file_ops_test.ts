import { testSession } from "../_test_session.ts";
import { assert, assertEquals } from "@std/assert";
import { skipWithoutBwrap } from "../../../_helpers/bwrap.ts";

const options = { timeoutMs: 10_000, onTimeout: () => new Error("timeout") as never };

/** The file information the supervisor's `info` gives, from Deno on the host. */
function hostInfo(path: string) {
  const i = Deno.statSync(path);
  return {
    isFile: i.isFile,
    isDirectory: i.isDirectory,
    isSymlink: i.isSymlink,
    isFifo: i.isFifo === true,
    isDevice: i.isCharDevice === true || i.isBlockDevice === true,
    isSocket: i.isSocket === true,
    size: i.size,
    mode: i.mode,
    dev: i.dev,
    ino: i.ino,
  };
}

Deno.test({
  name:
    "open answers exactly what Deno's calls give: the bytes, the file information, no handle for what is not a regular file, Deno's error for what is missing",
  ignore: skipWithoutBwrap(),
  async fn() {
    const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_open_" }));
    const session = await testSession(ws);
    try {
      const sizes = [0, 1, 6, 65_535, 65_536, 100_000];
      for (const size of sizes) {
        await Deno.writeFile(`${ws}/f${size}`, new Uint8Array(size).map((_, i) => i * 7));
      }
      await Deno.mkdir(`${ws}/dir`);
      await new Deno.Command("mkfifo", { args: [`${ws}/fifo`] }).output();
      await Deno.symlink(`${ws}/f6`, `${ws}/link`);
      await Deno.link(`${ws}/f1`, `${ws}/hard`);
      await Deno.chmod(`${ws}/f1`, 0o640);
      const open = (path: string) =>
        session.request({ op: "open", path, prefetch: 64 * 1024 }, undefined, options);
      for (const name of [...sizes.map((size) => `f${size}`), "link", "hard"]) {
        const answer = await open(`${ws}/${name}`);
        const ok = answer.header.ok as Record<string, unknown>;
        const data = await Deno.readFile(`${ws}/${name}`);
        assertEquals(ok.info, hostInfo(`${ws}/${name}`), name);
        assert(Number.isSafeInteger(ok.handle), name);
        // Up to the prefetch: whole small files end in the answer; larger ones stay open.
        assertEquals(ok.eof, data.length < 64 * 1024, name);
        assertEquals(answer.body, data.subarray(0, Math.min(data.length, 64 * 1024)), name);
        if (ok.eof !== true) {
          const closed = await session.request(
            { op: "close", handle: ok.handle as number },
            undefined,
            options,
          );
          assert(closed.header.ok !== undefined, name);
        }
      }
      // Not regular files: looked at, never read (the FIFO does not block the supervisor).
      for (const name of ["dir", "fifo"]) {
        const answer = await open(`${ws}/${name}`);
        assertEquals(answer.header.ok, { handle: null, info: hostInfo(`${ws}/${name}`) }, name);
      }
      const missing = await open(`${ws}/missing`);
      assertEquals((missing.header.error as { name: string }).name, "NotFound");
      const inside = await open(`${ws}/f6\0x`);
      assert(inside.header.error !== undefined, "a path with a NUL byte is refused");
    } finally {
      await session.close();
      await Deno.remove(ws, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "put replaces or creates with the bytes and permission bits Deno's own calls give, refuses what is not a regular file, and fails when the file read is no longer there",
  ignore: skipWithoutBwrap(),
  async fn() {
    const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_put_" }));
    const session = await testSession(ws);
    const put = (to: string, body: Uint8Array, fields: Record<string, unknown> = {}) =>
      session.request(
        {
          op: "put",
          path: `${ws}/.tmp-${crypto.randomUUID()}`,
          to: `${ws}/${to}`,
          mode: null,
          identity: null,
          expect: "file-or-absent",
          ...fields,
        },
        body,
        options,
      );
    try {
      await Deno.writeTextFile(`${ws}/kept`, "old");
      await Deno.chmod(`${ws}/kept`, 0o751);
      const before = hostInfo(`${ws}/kept`);
      const replaced = await put("kept", new TextEncoder().encode("new bytes"));
      assertEquals(replaced.header.ok, { written: true, before });
      assertEquals(await Deno.readTextFile(`${ws}/kept`), "new bytes");
      assertEquals(Deno.statSync(`${ws}/kept`).mode! & 0o7777, 0o751);

      const created = await put("fresh", new Uint8Array(70_000).fill(7), { mode: 0o640 });
      assertEquals(created.header.ok, { written: true, before: null });
      assertEquals(Deno.statSync(`${ws}/fresh`).mode! & 0o7777, 0o640);
      assertEquals((await Deno.readFile(`${ws}/fresh`)).length, 70_000);

      await Deno.mkdir(`${ws}/dir`);
      const refused = await put("dir", new Uint8Array(1));
      assertEquals(refused.header.ok, { written: false, before: hostInfo(`${ws}/dir`) });

      // The identity of a file that was replaced since: nothing written, Deno's error.
      const { dev, ino } = hostInfo(`${ws}/kept`);
      await Deno.writeTextFile(`${ws}/other`, "theirs");
      await Deno.rename(`${ws}/other`, `${ws}/kept`);
      const stale = await put("kept", new TextEncoder().encode("mine"), {
        identity: { dev, ino },
      });
      assertEquals((stale.header.error as { name: string }).name, "NotFound");
      assertEquals(await Deno.readTextFile(`${ws}/kept`), "theirs");
      // No temporary file is left by any of them.
      assertEquals([...Deno.readDirSync(ws)].filter((e) => e.name.startsWith(".tmp-")), []);
    } finally {
      await session.close();
      await Deno.remove(ws, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "create and put make their temporary file with exactly the bits asked (no umask), and never remove a file that was at its name already",
  ignore: skipWithoutBwrap(),
  async fn() {
    const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_create_" }));
    const session = await testSession(ws);
    const ask = (header: Parameters<typeof session.request>[0], body: Uint8Array) =>
      session.request(header, body, options);
    const bytes = new TextEncoder().encode("mine");
    try {
      const made = await ask({ op: "create", path: `${ws}/made`, mode: 0o777 }, bytes);
      assertEquals(made.header.ok, { info: hostInfo(`${ws}/made`) });
      assertEquals(Deno.statSync(`${ws}/made`).mode! & 0o7777, 0o777);
      assertEquals(await Deno.readTextFile(`${ws}/made`), "mine");

      await Deno.writeTextFile(`${ws}/theirs`, "theirs");
      const theirMode = Deno.statSync(`${ws}/theirs`).mode;
      const taken = await ask({ op: "create", path: `${ws}/theirs`, mode: 0o600 }, bytes);
      assertEquals((taken.header.error as { name: string }).name, "AlreadyExists");
      const put = await ask({
        op: "put",
        path: `${ws}/theirs`,
        to: `${ws}/target`,
        mode: null,
        identity: null,
        expect: "file-or-absent",
      }, bytes);
      assertEquals((put.header.error as { name: string }).name, "AlreadyExists");
      assertEquals(await Deno.readTextFile(`${ws}/theirs`), "theirs");
      assertEquals(Deno.statSync(`${ws}/theirs`).mode, theirMode);
      assertEquals([...Deno.readDirSync(ws)].map((e) => e.name).sort(), ["made", "theirs"]);
    } finally {
      await session.close();
      await Deno.remove(ws, { recursive: true });
    }
  },
});

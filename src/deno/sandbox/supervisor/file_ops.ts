import type { SupervisorContext, SupervisorOps } from "./supervisor_context.ts";

/**
 * The supervisor's file operations: `stat` (`path`, `follow`), `open` (a regular file, for
 * reading: `handle`, `info`, and the first `prefetch` bytes as body), `read` (`handle`,
 * `length`: the bytes as body, `eof` at the end), `close`, `mkdir`, `create` (a new file with
 * the body as content and `mode`), `put` (with `expect`, first a look at `to`: nothing written
 * unless it meets it; then `create` and, when the file at `to` still has the `identity` given,
 * a rename to `to`; answers `written` and what it saw, `before`), `rename`, `link`, `remove` and
 * `readDir`. Self-contained: its source text runs inside the sandbox.
 *
 * @param context The supervisor's shared context.
 */
export function fileOps(context: SupervisorContext): SupervisorOps {
  const { send } = context;
  const handles = new Map<number, Deno.FsFile>();
  let nextHandle = 1;
  const info = (i: Deno.FileInfo) => ({
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
  });
  // Reads up to `length` bytes (at most 1 MiB); `eof` when the file ended. File operations are
  // synchronous: a regular file answers at once, and skipping the thread pool halves the cost of
  // a small read. (Only a FIFO swapped in between the check and the open could block; then the
  // session hangs, and the host ends it at the deadline.) Given the `size` the open file had, a
  // read that stops short right there is its end (no read of nothing to confirm it).
  const readFull = (file: Deno.FsFile, length: number, size = -1) => {
    const buffer = new Uint8Array(Math.max(0, Math.min(length, 1 << 20)));
    let at = 0;
    while (at < buffer.length) {
      const count = file.readSync(buffer.subarray(at));
      if (count === null) return { bytes: buffer.subarray(0, at), eof: true };
      at += count;
      if (at === size && at < buffer.length) return { bytes: buffer.subarray(0, at), eof: true };
    }
    return { bytes: buffer, eof: false };
  };
  // A new file with `body` as content and permission bits `mode` (`null`: the default): one
  // call (open, `fchmod` before any byte is written, the whole write, close), not four. A file
  // that was there already is not ours to remove; any later failure removes the one made here.
  const createFile = async (p: string, modeValue: unknown, body: Uint8Array) => {
    const mode = modeValue === null ? undefined : Number(modeValue);
    try {
      Deno.writeFileSync(p, body, { createNew: true, mode });
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) await Deno.remove(p).catch(() => {});
      throw error;
    }
  };
  // Links `to` to `p` unless something is at `to`: returns what is there, or `undefined` when
  // linked (a thing there that is gone by the look is an error, as a refusal needs a `before`).
  // A file that was there at the link and gone at the look: the path is free again, try again.
  const linkNew = (p: string, to: string): Deno.FileInfo | undefined => {
    for (let attempt = 1;; attempt++) {
      try {
        Deno.linkSync(p, to);
        return undefined;
      } catch (error) {
        if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
        try {
          return Deno.lstatSync(to);
        } catch (gone) {
          if (!(gone instanceof Deno.errors.NotFound) || attempt === 3) throw error;
        }
      }
    }
  };
  const done = (request: { id: number }) => send({ id: request.id, ok: {} });
  const path = (request: { path: string }) => String(request.path ?? "");

  return {
    stat: (request) => {
      const p = path(request);
      const found = request.follow ? Deno.statSync(p) : Deno.lstatSync(p);
      return send({ id: request.id, ok: { info: info(found) } });
    },
    open: (request) => {
      const p = path(request);
      // Checked before opening (opening a FIFO would block), then on the open file.
      const before = Deno.statSync(p);
      if (!before.isFile) return send({ id: request.id, ok: { handle: null, info: info(before) } });
      const file = Deno.openSync(p, { read: true });
      const opened = file.statSync();
      if (!opened.isFile) {
        file.close();
        return send({ id: request.id, ok: { handle: null, info: info(opened) } });
      }
      const handle = nextHandle++;
      // Sized to the file (one byte more shows its end): no zeroed 64 KiB per small read. A
      // file that grew meanwhile is read on with `read`.
      const first = readFull(
        file,
        Math.min(Number(request.prefetch ?? 0), opened.size + 1),
        opened.size,
      );
      if (first.eof) file.close();
      else handles.set(handle, file);
      return send(
        { id: request.id, ok: { handle, info: info(opened), eof: first.eof } },
        first.bytes,
      );
    },
    read: (request) => {
      const file = handles.get(Number(request.handle));
      if (file === undefined) throw new TypeError("no such handle");
      const { bytes, eof } = readFull(file, Number(request.length));
      if (eof) {
        file.close();
        handles.delete(Number(request.handle));
      }
      return send({ id: request.id, ok: { eof } }, bytes);
    },
    close: (request) => {
      handles.get(Number(request.handle))?.close();
      handles.delete(Number(request.handle));
      return done(request);
    },
    mkdir: (request) => (Deno.mkdirSync(path(request)), done(request)),
    create: async (request, body) => {
      await createFile(path(request), request.mode, body);
      return send({ id: request.id, ok: { info: info(Deno.lstatSync(path(request))) } });
    },
    put: async (request, body) => {
      const p = path(request);
      const to = String(request.to);
      // With `expect`, the target is looked at first: nothing is written when it is not a
      // regular file or nothing (or is anything, for "absent"); a replaced regular file passes
      // its permission bits on, without setuid, setgid and sticky.
      let before: Deno.FileInfo | null = null;
      let mode = request.mode ?? null;
      if (request.expect !== null && request.expect !== undefined) {
        try {
          before = Deno.lstatSync(to);
        } catch (error) {
          if (!(error instanceof Deno.errors.NotFound)) throw error;
        }
        if (before !== null && (!before.isFile || request.expect !== "file-or-absent")) {
          return send({ id: request.id, ok: { written: false, before: info(before) } });
        }
        if (mode === null && before !== null && before.mode !== null) mode = before.mode & 0o777;
      }
      await createFile(p, mode, body);
      try {
        // The file that was read must still be there (the same check as the host's commit).
        const identity = request.identity as { dev: unknown; ino: unknown } | null;
        if (identity) {
          let now: Deno.FileInfo;
          try {
            now = Deno.lstatSync(to);
          } catch (error) {
            if (!(error instanceof Deno.errors.NotFound)) throw error;
            throw new Deno.errors.NotFound("The file disappeared while it was changed");
          }
          if (now.dev !== identity.dev || now.ino !== identity.ino) {
            throw new Deno.errors.NotFound("The file changed on disk while the patch was applied");
          }
        }
        if (request.expect === "absent") {
          // Only where nothing is at this moment: a link never replaces (a rename would replace
          // a file that appeared since the look, e.g. one of a concurrent create).
          const found = linkNew(p, to);
          await Deno.remove(p).catch(() => {});
          if (found !== undefined) {
            return send({ id: request.id, ok: { written: false, before: info(found) } });
          }
        } else Deno.renameSync(p, to);
      } catch (error) {
        await Deno.remove(p).catch(() => {});
        throw error;
      }
      return send({
        id: request.id,
        ok: { written: true, before: before === null ? null : info(before) },
      });
    },
    rename: (request) => (Deno.renameSync(path(request), String(request.to)), done(request)),
    link: (request) => (Deno.linkSync(path(request), String(request.to)), done(request)),
    remove: (request) => (Deno.removeSync(path(request)), done(request)),
    readDir: async (request) => {
      const entries = [];
      for await (const entry of Deno.readDir(path(request))) {
        entries.push({
          name: entry.name,
          isFile: entry.isFile,
          isDirectory: entry.isDirectory,
          isSymlink: entry.isSymlink,
        });
      }
      return send({ id: request.id, ok: { entries } });
    },
  };
}

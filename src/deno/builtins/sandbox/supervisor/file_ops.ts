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
 * @returns The operations.
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
  // A new file with `body` as content and permission bits `mode` (`null`: the default).
  const createFile = async (p: string, modeValue: unknown, body: Uint8Array) => {
    const mode = modeValue === null ? undefined : Number(modeValue);
    const file = Deno.openSync(p, { write: true, createNew: true, mode: mode ?? 0o666 });
    try {
      for (let at = 0; at < body.length;) at += file.writeSync(body.subarray(at));
      file.close();
      if (mode !== undefined) Deno.chmodSync(p, mode);
    } catch (error) {
      try {
        file.close();
      } catch {
        // Closed already.
      }
      await Deno.remove(p).catch(() => {});
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
  // `open` of a small regular file through libc where it can be loaded (FFI: the supervisor runs
  // with all permissions), else (and on any failure, which Deno's calls then name) as below: the
  // same steps, stat, open, fstat, read and close, without Deno's cost per call (a file
  // information object with four dates, twice). Opened with O_NONBLOCK, a FIFO swapped in after
  // the stat does not block the supervisor either; O_CLOEXEC: no command inherits it.
  const native = (() => {
    try {
      return Deno.dlopen("libc.so.6", {
        statx: { parameters: ["i32", "buffer", "i32", "u32", "buffer"], result: "i32" },
        open: { parameters: ["buffer", "i32"], result: "i32" },
        read: { parameters: ["i32", "buffer", "u64"], result: "i64" },
        close: { parameters: ["i32"], result: "i32" },
        openMode: { name: "open", parameters: ["buffer", "i32", "u32"], result: "i32" },
        write: { parameters: ["i32", "buffer", "u64"], result: "i64" },
        fchmod: { parameters: ["i32", "u32"], result: "i32" },
        rename: { parameters: ["buffer", "buffer"], result: "i32" },
        unlink: { parameters: ["buffer"], result: "i32" },
        __errno_location: { parameters: [], result: "pointer" },
      }).symbols;
    } catch {
      return undefined;
    }
  })();
  const encoder = new TextEncoder();
  let cPath = new Uint8Array(1024);
  // A path as a C string (a new buffer each: several are in use at once).
  const cString = (p: string) => {
    const bytes = new Uint8Array(p.length * 3 + 1);
    bytes[encoder.encodeInto(p, bytes).written] = 0;
    return bytes;
  };
  const errno = () => {
    const at = native!.__errno_location();
    return at === null ? 0 : new Deno.UnsafePointerView(at).getInt32();
  };
  const noPath = new Uint8Array(1);
  const sx = new DataView(new ArrayBuffer(256));
  const sxBytes = new Uint8Array(sx.buffer);
  // struct statx (the same on every architecture) as `info` gives Deno's file information.
  const statx = (fd: number, at: Uint8Array, flags: number) => {
    // STATX_BASIC_STATS
    if (native!.statx(fd, at, flags, 0x7ff, sxBytes) !== 0) return undefined;
    const mode = sx.getUint16(28, true);
    const type = mode & 0o170000;
    const major = BigInt(sx.getUint32(136, true));
    const minor = BigInt(sx.getUint32(140, true));
    return {
      isFile: type === 0o100000,
      isDirectory: type === 0o040000,
      isSymlink: type === 0o120000,
      isFifo: type === 0o010000,
      isDevice: type === 0o020000 || type === 0o060000,
      isSocket: type === 0o140000,
      size: Number(sx.getBigUint64(40, true)),
      mode,
      // glibc's makedev, as in st_dev
      dev: Number(
        ((major & 0xfffn) << 8n) | ((major & 0xfffff000n) << 32n) | (minor & 0xffn) |
          ((minor & 0xffffff00n) << 12n),
      ),
      ino: Number(sx.getBigUint64(32, true)),
    };
  };
  // The answer to `open`, or `undefined`: then Deno's way (also for a file of `prefetch` bytes
  // or more, which stays open for `read`).
  const openNative = (p: string, prefetch: number) => {
    if (native === undefined || p.includes("\0")) return undefined;
    if (cPath.length < p.length * 3 + 1) cPath = new Uint8Array(p.length * 3 + 1);
    cPath[encoder.encodeInto(p, cPath).written] = 0;
    // AT_FDCWD: the path as given (absolute), symlinks followed as Deno.statSync does.
    const before = statx(-100, cPath, 0);
    if (before === undefined) return undefined;
    if (!before.isFile) return { ok: { handle: null, info: before } };
    if (before.size >= Math.min(prefetch, 1 << 20)) return undefined;
    // O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC (x86_64 and aarch64 alike)
    const fd = native.open(cPath, 0o4000 | 0o400 | 0o2000000);
    if (fd < 0) return undefined;
    try {
      // AT_EMPTY_PATH: the open file itself.
      const opened = statx(fd, noPath, 0x1000);
      if (opened === undefined) return undefined;
      if (!opened.isFile) return { ok: { handle: null, info: opened } };
      if (opened.size >= Math.min(prefetch, 1 << 20)) return undefined;
      // Sized to the file and one byte more, as `readFull` below: the end shows.
      const bytes = new Uint8Array(opened.size + 1);
      let at = 0;
      while (at < bytes.length) {
        const count = Number(native.read(fd, bytes.subarray(at), BigInt(bytes.length - at)));
        if (count < 0) return undefined;
        if (count === 0 || at + count === opened.size) {
          at += count;
          return {
            ok: { handle: nextHandle++, info: opened, eof: true },
            body: bytes.subarray(0, at),
          };
        }
        at += count;
      }
      return undefined; // It grew: Deno's way keeps it open.
    } finally {
      native.close(fd);
    }
  };
  // `put` through libc where it loads, for a replace or a new file (`expect` "file-or-absent" or
  // none): the same steps and checks as Deno's way in `put` below (the look at the target, the
  // new file, its identity check, the rename), the permission bits set on the open file. Any
  // other failure removes what it made and returns `undefined`: then Deno's way, from the start,
  // which answers it (the checks see what is there then).
  const putNative = (p: string, to: string, request: Record<string, unknown>, body: Uint8Array) => {
    if (native === undefined || p.includes("\0") || to.includes("\0")) return undefined;
    const expect = request.expect ?? null;
    if (expect !== null && expect !== "file-or-absent") return undefined;
    const cTo = cString(to);
    let before: ReturnType<typeof statx> | null = null;
    let mode = request.mode === null || request.mode === undefined
      ? undefined
      : Number(request.mode);
    if (expect !== null) {
      // AT_SYMLINK_NOFOLLOW, as lstat
      before = statx(-100, cTo, 0x100) ?? null;
      if (before === null && errno() !== 2) return undefined; // ENOENT is "absent"
      if (before !== null && !before.isFile) return { written: false, before };
      if (mode === undefined && before !== null) mode = before.mode & 0o777;
    }
    if (!Number.isInteger(mode ?? 0)) return undefined;
    const cP = cString(p);
    // O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, as Deno's createNew
    const fd = native.openMode(cP, 0o1 | 0o100 | 0o200 | 0o2000000, mode ?? 0o666);
    if (fd < 0) return undefined;
    let ok = true;
    for (let at = 0; ok && at < body.length;) {
      const count = Number(native.write(fd, body.subarray(at), BigInt(body.length - at)));
      if (count <= 0) ok = false;
      else at += count;
    }
    if (ok && mode !== undefined) ok = native.fchmod(fd, mode) === 0;
    if (native.close(fd) !== 0) ok = false;
    if (ok) {
      // The file that was read must still be there (the same check as the host's commit).
      const identity = request.identity as { dev: unknown; ino: unknown } | null;
      if (identity) {
        const now = statx(-100, cTo, 0x100);
        ok = now !== undefined && now.dev === identity.dev && now.ino === identity.ino;
      }
    }
    if (ok) ok = native.rename(cP, cTo) === 0;
    if (!ok) {
      native.unlink(cP);
      return undefined;
    }
    return { written: true, before };
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
      const fast = openNative(p, Number(request.prefetch ?? 0));
      if (fast !== undefined) return send({ id: request.id, ok: fast.ok }, fast.body);
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
      const fast = putNative(p, to, request, body);
      if (fast !== undefined) return send({ id: request.id, ok: fast });
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
          if (found !== undefined) {
            await Deno.remove(p).catch(() => {});
            return send({ id: request.id, ok: { written: false, before: info(found) } });
          }
          await Deno.remove(p).catch(() => {});
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

/**
 * The supervisor that runs inside a sandbox session (see `sandbox_session.ts`): a small Deno
 * program that serves file operations and bash commands over its stdin and stdout, one frame at
 * a time. The host sends the source of {@linkcode supervisorMain} (as transpiled by Deno, so it
 * must stay self-contained: no imports, no outside names) and runs it with the host's own
 * `deno` binary, bound read-only into the sandbox.
 *
 * A frame is an 8-byte header (the JSON part's length and the body's length, big-endian
 * unsigned 32-bit), a JSON object and a body of raw bytes. Requests carry an `id` and an `op`;
 * every answer names the `id` it answers. The host treats every answer as untrusted.
 *
 * Operations: `stat` (`path`, `follow`), `open` (a regular file, for reading: `handle`, `info`),
 * `read` (`handle`, `length`: the bytes as body, empty at the end), `close`, `mkdir`, `create`
 * (a new file with the body as content and `mode`), `rename`, `link`, `remove`, `readDir`,
 * `exec` (a bash command: its output as `stream` frames 1 and 2, then `exit`), `cancel` (an
 * `exec`), and `ping`.
 */

/**
 * The supervisor's program. Never called in the host: its source text is what runs inside the
 * sandbox.
 */
export async function supervisorMain(): Promise<void> {
  // One failed operation never ends the supervisor: it answers with an error instead.
  globalThis.addEventListener("unhandledrejection", (event) => event.preventDefault());
  const encoder = new TextEncoder();
  const handles = new Map<number, Deno.FsFile>();
  const runs = new Map<
    number,
    {
      cancel: () => void;
      signal?: (name: Deno.Signal) => void;
      stdin?: WritableStreamDefaultWriter<Uint8Array>;
    }
  >();
  let nextHandle = 1;
  let writing: Promise<unknown> = Promise.resolve();

  const send = (header: Record<string, unknown>, body: Uint8Array = new Uint8Array()) => {
    const json = encoder.encode(JSON.stringify(header));
    const frame = new Uint8Array(8 + json.length + body.length);
    const view = new DataView(frame.buffer);
    view.setUint32(0, json.length);
    view.setUint32(4, body.length);
    frame.set(json, 8);
    frame.set(body, 8 + json.length);
    writing = writing.then(async () => {
      for (let at = 0; at < frame.length;) at += await Deno.stdout.write(frame.subarray(at));
    });
    return writing;
  };
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
    nlink: i.nlink,
  });
  // Reads up to `length` bytes (at most 1 MiB); `eof` when the file ended. File operations are
  // synchronous: a regular file answers at once, and skipping the thread pool halves the cost of
  // a small read. (Only a FIFO swapped in between the check and the open could block; then the
  // session hangs, and the host ends it at the deadline.)
  const readFull = (file: Deno.FsFile, length: number) => {
    const buffer = new Uint8Array(Math.max(0, Math.min(length, 1 << 20)));
    let at = 0;
    while (at < buffer.length) {
      const count = file.readSync(buffer.subarray(at));
      if (count === null) return { bytes: buffer.subarray(0, at), eof: true };
      at += count;
    }
    return { bytes: buffer, eof: false };
  };
  const processIds = (): number[] => {
    const ids: number[] = [];
    // Synchronous: the sandbox's /proc lists a handful of entries.
    for (const entry of Deno.readDirSync("/proc")) {
      const pid = Number(entry.name);
      if (Number.isInteger(pid) && pid > 1 && pid !== Deno.pid) ids.push(pid);
    }
    return ids;
  };
  const kill = (pid: number) => {
    try {
      Deno.kill(pid, "SIGKILL");
    } catch {
      // Gone already.
    }
  };
  // Ends a command: its shell and, when no other command runs, every process of the sandbox but
  // the supervisor (its background children too, also those that started their own session).
  // While other commands run, a command's leftover children live on until the last one ends.
  // Nothing is put in the command's environment to find its processes, and no process group is
  // made (a detached spawn forks the whole supervisor and triples the cost of a short command).
  const reap = async (shell: number) => {
    kill(shell);
    try {
      for (let round = 0; round < 5 && runs.size === 0; round++) {
        const pids = processIds();
        if (pids.length === 0) return;
        pids.forEach(kill);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    } catch {
      // The sandbox's /proc went away: the session is ending.
    }
  };

  const exec = async (id: number, request: Record<string, unknown>) => {
    const child = new Deno.Command("bash", {
      args: ["-c", String(request.prefix ?? "") + String(request.command)],
      cwd: String(request.cwd),
      env: request.env as Record<string, string>,
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    let timedOut = false;
    let cancelled = false;
    const stop = new AbortController();
    const end = () => void reap(child.pid);
    runs.set(id, { cancel: () => (cancelled = true, end()) });
    const timer = setTimeout(() => {
      timedOut = true;
      end();
    }, Number(request.timeoutMs));
    const pump = async (stream: ReadableStream<Uint8Array>, which: number) => {
      const reader = stream.getReader();
      const stopped = () => reader.cancel().catch(() => {});
      stop.signal.addEventListener("abort", stopped, { once: true });
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          await send({ id, stream: which }, value);
        }
      } catch {
        // Cancelled after the grace period.
      }
    };
    const pumps = Promise.all([pump(child.stdout, 1), pump(child.stderr, 2)]);
    const status = await child.status;
    clearTimeout(timer);
    runs.delete(id);
    // Background children of the command end with it.
    await reap(child.pid);
    const grace = setTimeout(() => stop.abort(), 250);
    await pumps;
    clearTimeout(grace);
    const code = status.signal === null ? status.code : 128 + signalNumber(status.signal);
    await send({ id, exit: { code, timedOut, cancelled } });
  };
  const signalNumber = (signal: string) =>
    ({ SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGSEGV: 11, SIGPIPE: 13, SIGTERM: 15 })[
      signal
    ] ?? 9;

  // A background process: its own process group, stdin open, output streamed until it ends;
  // then what it left in its group is killed (as when its own sandbox ended).
  const spawn = async (id: number, request: Record<string, unknown>) => {
    const child = new Deno.Command("bash", {
      args: ["-c", String(request.prefix ?? "") + String(request.command)],
      cwd: String(request.cwd),
      env: request.env as Record<string, string>,
      clearEnv: true,
      detached: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const group = (name: Deno.Signal) => {
      try {
        Deno.kill(-child.pid, name);
      } catch {
        // Gone already.
      }
    };
    runs.set(id, {
      cancel: () => group("SIGKILL"),
      signal: group,
      stdin: child.stdin.getWriter(),
    });
    const pump = async (stream: ReadableStream<Uint8Array>, which: number) => {
      for await (const chunk of stream) await send({ id, stream: which }, chunk);
    };
    const pumps = Promise.allSettled([pump(child.stdout, 1), pump(child.stderr, 2)]);
    const status = await child.status;
    group("SIGKILL");
    runs.get(id)?.stdin?.abort().catch(() => {});
    runs.delete(id);
    await reap(child.pid);
    await pumps;
    const code = status.signal === null ? status.code : 128 + signalNumber(status.signal);
    await send({ id, exit: { code, timedOut: false, cancelled: false } });
  };

  const serve = async (request: Record<string, unknown>, body: Uint8Array) => {
    const id = Number(request.id);
    const path = String(request.path ?? "");
    try {
      switch (request.op) {
        case "ping":
          return await send({ id, ok: {} });
        case "stat":
          return await send({
            id,
            ok: { info: info(request.follow ? Deno.statSync(path) : Deno.lstatSync(path)) },
          });
        case "open": {
          // Checked before opening (opening a FIFO would block), then on the open file.
          const before = Deno.statSync(path);
          if (!before.isFile) return await send({ id, ok: { handle: null, info: info(before) } });
          const file = Deno.openSync(path, { read: true });
          const opened = file.statSync();
          if (!opened.isFile) {
            file.close();
            return await send({ id, ok: { handle: null, info: info(opened) } });
          }
          const handle = nextHandle++;
          const first = readFull(file, Number(request.prefetch ?? 0));
          if (first.eof) file.close();
          else handles.set(handle, file);
          return await send(
            { id, ok: { handle, info: info(opened), eof: first.eof } },
            first.bytes,
          );
        }
        case "read": {
          const file = handles.get(Number(request.handle));
          if (file === undefined) throw new TypeError("no such handle");
          const { bytes, eof } = readFull(file, Number(request.length));
          if (eof) {
            file.close();
            handles.delete(Number(request.handle));
          }
          return await send({ id, ok: { eof } }, bytes);
        }
        case "close":
          handles.get(Number(request.handle))?.close();
          handles.delete(Number(request.handle));
          return await send({ id, ok: {} });
        case "mkdir":
          Deno.mkdirSync(path);
          return await send({ id, ok: {} });
        case "create": {
          const mode = request.mode === null ? undefined : Number(request.mode);
          const file = Deno.openSync(path, { write: true, createNew: true, mode: mode ?? 0o666 });
          try {
            for (let at = 0; at < body.length;) at += file.writeSync(body.subarray(at));
            file.close();
            if (mode !== undefined) Deno.chmodSync(path, mode);
          } catch (error) {
            try {
              file.close();
            } catch {
              // Closed already.
            }
            await Deno.remove(path).catch(() => {});
            throw error;
          }
          return await send({ id, ok: { info: info(Deno.lstatSync(path)) } });
        }
        case "rename":
          Deno.renameSync(path, String(request.to));
          return await send({ id, ok: {} });
        case "link":
          Deno.linkSync(path, String(request.to));
          return await send({ id, ok: {} });
        case "remove":
          Deno.removeSync(path);
          return await send({ id, ok: {} });
        case "readDir": {
          const entries = [];
          for await (const entry of Deno.readDir(path)) {
            entries.push({
              name: entry.name,
              isFile: entry.isFile,
              isDirectory: entry.isDirectory,
              isSymlink: entry.isSymlink,
            });
          }
          return await send({ id, ok: { entries } });
        }
        case "exec":
          return await exec(id, request);
        case "net": {
          // Bridges a loopback port to the host's proxy socket (the only way out).
          const listener = Deno.listen({ hostname: "127.0.0.1", port: Number(request.port) });
          const socket = String(request.path);
          void (async () => {
            for await (const conn of listener) {
              void (async () => {
                try {
                  const out = await Deno.connect({ transport: "unix", path: socket });
                  await Promise.allSettled([
                    conn.readable.pipeTo(out.writable),
                    out.readable.pipeTo(conn.writable),
                  ]);
                } catch {
                  // The proxy refused or went away: the connection ends.
                }
                try {
                  conn.close();
                } catch {
                  // Closed by the pipe already.
                }
              })();
            }
          })();
          return await send({ id, ok: {} });
        }
        case "cancel":
          runs.get(Number(request.target))?.cancel();
          return await send({ id, ok: {} });
        case "spawn":
          return await spawn(id, request);
        case "signal": {
          const name = String(request.signal);
          if (name !== "SIGTERM" && name !== "SIGKILL" && name !== "SIGINT") {
            throw new TypeError("unknown signal");
          }
          runs.get(Number(request.target))?.signal?.(name);
          return await send({ id, ok: {} });
        }
        case "stdin": {
          const writer = runs.get(Number(request.target))?.stdin;
          if (writer === undefined) throw new TypeError("no such process");
          if (request.close === true) await writer.close();
          else await writer.write(body);
          return await send({ id, ok: {} });
        }
        default:
          throw new TypeError("unknown operation");
      }
    } catch (error) {
      const name = error instanceof Error ? error.name : "Error";
      const message = error instanceof Error ? error.message : String(error);
      await send({ id, error: { name, message } });
    }
  };

  await send({ id: 0, ready: { pid: Deno.pid } });
  const reader = Deno.stdin.readable.getReader();
  // Chunks are joined only once a whole frame is there: linear in the bytes received.
  let pending: Uint8Array[] = [];
  let total = 0;
  let need = 8;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    pending.push(value);
    total += value.length;
    if (total < need) continue;
    let all = new Uint8Array(total);
    let at = 0;
    for (const chunk of pending) {
      all.set(chunk, at);
      at += chunk.length;
    }
    need = 8;
    while (all.length >= 8) {
      const view = new DataView(all.buffer, all.byteOffset);
      const end = 8 + view.getUint32(0) + view.getUint32(4);
      if (all.length < end) {
        need = end;
        break;
      }
      const jsonEnd = 8 + view.getUint32(0);
      const header = JSON.parse(new TextDecoder().decode(all.subarray(8, jsonEnd)));
      void serve(header, all.slice(jsonEnd, end));
      all = all.subarray(end);
    }
    pending = [all];
    total = all.length;
  }
  // The host closed the pipe: end every command and leave.
  for (const pid of processIds()) kill(pid);
  Deno.exit(0);
}

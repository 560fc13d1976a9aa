import type { SupervisorContext, SupervisorOp, SupervisorOps } from "./supervisor_context.ts";

/**
 * The supervisor's program (see `supervisor_script.ts` for how it is sent): reads request frames
 * from stdin and serves each with the operation its `op` names, from the table the families
 * make. One failed operation never ends the supervisor: it answers with an `error` instead.
 * When the host closes the pipe, every process of the sandbox is killed and the supervisor
 * exits. Never called in the host: its source text runs inside the sandbox.
 *
 * @param makeContext Makes the shared context (`supervisorContext`).
 * @param families The operation families (each a function of the context).
 */
export async function supervisorMain(
  makeContext: () => SupervisorContext,
  families: ReadonlyArray<(context: SupervisorContext) => SupervisorOps>,
): Promise<void> {
  globalThis.addEventListener("unhandledrejection", (event) => event.preventDefault());
  // The host's pipes come on fds 4 and 5 (`--toolroute-fds=4,5`, see `session_launch.ts`),
  // where bubblewrap's init does not keep them: moved to 0 and 1 (which Deno.stdin and
  // Deno.stdout use). Then the supervisor is made non-dumpable: the commands (same user, no
  // capabilities) can no longer open its /proc/<pid>/fd, task/*/fd or mem, through which a
  // command wrote requests into its input or answers into its output. Where libc cannot be
  // loaded, or the descriptors are not these pipes, stdin and stdout are used as they are.
  // A long-lived command's own pipes come on 6, 7 and 8 (`--toolroute-stdio=6,7,8`): handed to
  // the one background process that asks for them (`spawn` with `stdio: "passed"`), then closed
  // here, so that its bytes never pass the supervisor and its end is seen as theirs.
  let releaseStdio: (() => void) | undefined;
  if (Deno.args.includes("--toolroute-fds=4,5")) {
    try {
      const libc = Deno.dlopen("libc.so.6", {
        fcntl: { parameters: ["i32", "i32"], result: "i32" },
        dup2: { parameters: ["i32", "i32"], result: "i32" },
        close: { parameters: ["i32"], result: "i32" },
        prctl: { parameters: ["i32", "u64", "u64", "u64", "u64"], result: "i32" },
      }).symbols;
      // F_GETFL: O_RDONLY on 4, O_WRONLY on 5
      if ((libc.fcntl(4, 3) & 3) === 0 && (libc.fcntl(5, 3) & 3) === 1) {
        if (libc.dup2(4, 0) !== 0 || libc.dup2(5, 1) !== 1) Deno.exit(70);
        libc.close(4);
        libc.close(5);
      }
      if (
        Deno.args.includes("--toolroute-stdio=6,7,8") && (libc.fcntl(6, 3) & 3) === 0 &&
        (libc.fcntl(7, 3) & 3) === 1 && (libc.fcntl(8, 3) & 3) === 1
      ) {
        releaseStdio = () => {
          releaseStdio = undefined;
          for (const fd of [6, 7, 8]) libc.close(fd);
        };
      }
      // PR_SET_DUMPABLE, 0
      if (libc.prctl(4, 0n, 0n, 0n, 0n) !== 0) Deno.exit(70);
    } catch {
      // No libc: as they are.
    }
  }
  // Work going on outside any request (see `SupervisorContext.hold`).
  let held = 0;
  // Requests being served: while any is, the input is read asynchronously (see below).
  let serving = 0;
  const context: SupervisorContext = {
    ...makeContext(),
    hold(work) {
      held++;
      work.finally(() => held--).catch(() => {});
    },
    takeStdio: () => {
      const release = releaseStdio;
      releaseStdio = undefined;
      return release;
    },
  };
  // No prototype: an `op` such as "constructor" names no operation.
  const ops: Record<string, SupervisorOp> = Object.create(null);
  for (const family of families) Object.assign(ops, family(context));

  const serve = async (request: Record<string, unknown>, body: Uint8Array) => {
    const id = Number(request.id);
    request.id = id;
    serving++;
    try {
      const op = typeof request.op === "string" ? ops[request.op] : undefined;
      if (op === undefined) throw new TypeError("unknown operation");
      await op(request as never, body);
    } catch (error) {
      const name = error instanceof Error ? error.name : "Error";
      const message = error instanceof Error ? error.message : String(error);
      await context.send({ id, error: { name, message } });
    } finally {
      serving--;
    }
  };

  await context.send({ id: 0, ready: { pid: Deno.pid } });
  // Read directly, not through a stream: one operation per chunk.
  const buffer = new Uint8Array(1 << 16);
  const decoder = new TextDecoder();
  // Chunks are joined only once a whole frame is there: linear in the bytes received.
  let pending: Uint8Array[] = [];
  let total = 0;
  let need = 8;
  // With nothing to serve and no work held (`context.hold`), the next request is waited for on
  // the main thread, in the read itself: a read through Deno's thread pool costs one more thread
  // wake-up per request (about a fifth of a file operation's round trip). Otherwise the read is
  // asynchronous, so that commands' output, exits and cancels flow meanwhile. One read at a
  // time, either way: no byte can go to another reader. An operation served synchronously ends
  // within a few ticks of its start, which are let run first.
  const readSync = () => {
    for (;;) {
      try {
        return Deno.stdin.readSync(buffer);
      } catch (error) {
        if (!(error instanceof Deno.errors.Interrupted)) throw error;
      }
    }
  };
  for (;;) {
    for (let tick = 0; tick < 4 && serving > 0; tick++) await undefined;
    const count = serving === 0 && held === 0 ? readSync() : await Deno.stdin.read(buffer);
    if (count === null) break;
    const value = buffer.slice(0, count);
    pending.push(value);
    total += value.length;
    if (total < need) continue;
    let all = pending.length === 1 ? pending[0] : new Uint8Array(total);
    if (pending.length > 1) {
      let at = 0;
      for (const chunk of pending) {
        all.set(chunk, at);
        at += chunk.length;
      }
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
      const header = JSON.parse(decoder.decode(all.subarray(8, jsonEnd)));
      void serve(header, all.slice(jsonEnd, end));
      all = all.subarray(end);
    }
    pending = [all];
    total = all.length;
  }
  // The host closed the pipe: end every command and leave.
  for (const pid of context.processIds()) context.kill(pid);
  Deno.exit(0);
}

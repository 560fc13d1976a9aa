/** What an `exec` asks of its shell: the same fields a cold `bash -c` gets. */
export interface WarmShellRequest {
  /** The command's text. */
  readonly command: string;
  /** The limits prefix (`ulimit ...; `), run after the cgroup entry. */
  readonly prefix: string;
  /** The working directory. */
  readonly cwd: string;
  /** The whole environment (none of the variables bash acts on at its start). */
  readonly env: Record<string, string>;
}

/** The supervisor's end of a waiting shell's stdin: its descriptor and the pipe's inode. */
interface StdinPipe {
  readonly fd: number;
  readonly inode: bigint;
}

/** The supervisor's warm shell (see {@linkcode warmShell}). */
export interface WarmShell {
  /**
   * The waiting shell, given the command, when it was started for the same prefix, directory and
   * environment, is still alive and in that directory; else `undefined` (a waiting shell whose
   * parameters differ is killed): the command takes the cold path. When `given` settles before
   * the command's text is written (a process of the session can fill the pipe and hold its
   * read end), the shell is killed and `undefined` returned at once.
   */
  take(
    shell: WarmShellRequest,
    given?: Promise<unknown>,
  ): Promise<Deno.ChildProcess | undefined>;
  /** Starts a shell for these parameters, unless one waits for them already. */
  prepare(shell: WarmShellRequest): void;
  /**
   * Ends the waiting shell: a command or background process that ran beside it may have made it
   * run code of theirs (its whole read length written into its stdin, or code injected by
   * ptrace), and reaps spare it.
   */
  discard(): void;
  /** The waiting shell's process id. */
  readonly pid: number | undefined;
}

/**
 * One bash per session started ahead of time, in idle time (after a command's end), with the
 * parameters of the last `exec`: it moves itself into the limited cgroups (`enter`) and runs the
 * limits prefix, then waits in `read` on its stdin. An `exec` with the same parameters writes the
 * full text a cold `bash -c` would get (`enter`, prefix, command: bash's `BASH_EXECUTION_STRING`)
 * and closes the pipe; the shell takes stdin from `/dev/null`, resets `SECONDS`, leaves `$_` as
 * the cold shell's prefix does, and `eval`s the command: same pid, parent, cgroup, limits,
 * environment, directory, `$0`, `$$`, exit codes and output streams as a cold shell, without the
 * start of a process and of bash on the command's way. (Left different: see `docs/sandbox.md`.)
 * Commands of the session can see, kill or stop it like any of their processes: that only ever
 * sends the session's own next command the cold way, or ends it. A global of the supervisor
 * (`supervisor_script.ts`): self-contained.
 *
 * @param enter The cgroup entry every shell runs first (empty without a cgroup).
 * @returns The warm shell.
 */
export function warmShell(enter: string): WarmShell {
  // Bigger texts take the cold path: under the argument limit (128 KiB), so a command a cold
  // shell could not be given is never run warm; `read -N` counts characters (at most bytes).
  const maxBytes = 1 << 16;
  const encoder = new TextEncoder();
  let waiting: { child: Deno.ChildProcess; key: string; pipe?: StdinPipe } | undefined;
  // The supervisor's own end of a waiting shell's stdin, found in idle time (at its start), to
  // write the text with one system call (FFI: the supervisor runs with all permissions) instead
  // of two asynchronous operations (write, then close) that each wait for a turn of the event
  // loop; where libc cannot be loaded, or the end is not found or not certain, the stream.
  const libc = (() => {
    try {
      return Deno.dlopen("libc.so.6", {
        write: { parameters: ["i32", "buffer", "u64"], result: "i64" },
        fcntl: { parameters: ["i32", "i32"], result: "i32" },
        statx: { parameters: ["i32", "buffer", "i32", "u32", "buffer"], result: "i32" },
      }).symbols;
    } catch {
      return undefined;
    }
  })();
  const sx = new Uint8Array(256);
  const noPath = new Uint8Array(1);
  // The inode of the pipe open on `fd`, if it is open for writing only.
  const pipeInode = (fd: number) => {
    // F_GETFL: O_WRONLY; STATX_INO of the open file (AT_EMPTY_PATH)
    if (libc === undefined || (libc.fcntl(fd, 3) & 3) !== 1) return undefined;
    if (libc.statx(fd, noPath, 0x1000, 0x100, sx) !== 0) return undefined;
    return new DataView(sx.buffer).getBigUint64(32, true);
  };
  const stdinPipe = (pid: number): StdinPipe | undefined => {
    if (libc === undefined) return undefined;
    try {
      const link = Deno.readLinkSync(`/proc/${pid}/fd/0`);
      const inode = /^pipe:\[(\d+)\]$/.exec(link)?.[1];
      if (inode === undefined) return undefined;
      const found: number[] = [];
      for (const entry of Deno.readDirSync("/proc/self/fd")) {
        try {
          if (Deno.readLinkSync(`/proc/self/fd/${entry.name}`) === link) {
            found.push(Number(entry.name));
          }
        } catch {
          // Closed meanwhile (the directory's own descriptor).
        }
      }
      // Exactly one: the shell's end is its own, ours is the only other.
      if (found.length !== 1 || pipeInode(found[0]) !== BigInt(inode)) return undefined;
      return { fd: found[0], inode: BigInt(inode) };
    } catch {
      return undefined;
    }
  };
  const keyOf = (shell: WarmShellRequest) =>
    JSON.stringify([shell.prefix, shell.cwd, Object.entries(shell.env)]);
  const end = (child: Deno.ChildProcess) => {
    try {
      child.kill("SIGKILL");
    } catch {
      // Gone already.
    }
    child.stdin.close().catch(() => {});
    child.stdout.cancel().catch(() => {});
    child.stderr.cancel().catch(() => {});
  };
  // The parts of a cold shell's text before the command are plain ASCII (one character each),
  // and run a command (so `$_`, `$?` and `PIPESTATUS` are theirs); `SECONDS` from the
  // environment would be a cold shell's start value (the warm shell resets it to 0).
  const usable = (shell: WarmShellRequest) =>
    /^[\x20-\x7e]+$/.test(enter + shell.prefix) && shell.env.SECONDS === undefined;

  return {
    get pid() {
      return waiting?.child.pid;
    },
    async take(shell, given) {
      const ready = waiting;
      if (ready === undefined) return undefined;
      // A text a cold shell would get otherwise (or not at all) leaves the shell waiting.
      const text = encoder.encode(enter + shell.prefix + shell.command);
      if (
        text.length > maxBytes || shell.command.includes("\0") || !shell.command.isWellFormed()
      ) return undefined;
      waiting = undefined;
      try {
        // Same parameters, still in the same directory (not one deleted or renamed since), and
        // neither stopped nor traced (by a process of the session).
        const pid = ready.child.pid;
        const status = ready.key === keyOf(shell) &&
          Deno.readLinkSync(`/proc/${pid}/cwd`) === shell.cwd &&
          Deno.readTextFileSync(`/proc/${pid}/status`);
        if (!status || !/^State:\s+[RSD]/m.test(status) || !/^TracerPid:\s+0$/m.test(status)) {
          throw new Error("not this one");
        }
        const writer = ready.child.stdin.getWriter();
        // All of it at once through our end of the pipe, checked again (still that pipe, open
        // for writing): then the end of input, the stream's close, takes no wait. Anything less
        // (a pipe that a process of the session filled), the rest through the stream as before.
        const pipe = ready.pipe;
        const sent = pipe !== undefined && pipeInode(pipe.fd) === pipe.inode
          ? Math.max(0, Number(libc!.write(pipe.fd, text, BigInt(text.length))))
          : 0;
        if (sent === text.length) {
          writer.close().catch(() => {});
          return ready.child;
        }
        try {
          const written = writer.write(text.subarray(sent));
          written.catch(() => {});
          await (given === undefined ? written : Promise.race([
            written,
            given.then(() => {
              throw new Error("given up");
            }),
          ]));
          await writer.close();
        } catch (error) {
          writer.releaseLock();
          throw error;
        }
        return ready.child;
      } catch {
        // Dead (its pipe is closed), or not for this command.
        end(ready.child);
        return undefined;
      }
    },
    discard() {
      if (waiting === undefined) return;
      end(waiting.child);
      waiting = undefined;
    },
    prepare(shell) {
      const key = keyOf(shell);
      if (waiting?.key === key || !usable(shell)) return;
      if (waiting !== undefined) end(waiting.child);
      waiting = undefined;
      const skip = (enter + shell.prefix).length;
      // `$_` as the cold shell leaves it: the last word of the prefix (run again: it only sets
      // the same limits) or of the cgroup entry (`echo 0 > file`).
      const last = shell.prefix !== "" ? shell.prefix : ": 0; ";
      let child: Deno.ChildProcess;
      try {
        child = new Deno.Command("bash", {
          args: [
            "-c",
            `${enter}${shell.prefix}IFS= read -r -N ${2 * maxBytes} BASH_EXECUTION_STRING; ` +
            `exec </dev/null; SECONDS=0; ${last}eval "\${BASH_EXECUTION_STRING:${skip}}"`,
          ],
          cwd: shell.cwd,
          env: shell.env,
          clearEnv: true,
          stdin: "piped",
          stdout: "piped",
          stderr: "piped",
        }).spawn();
      } catch {
        return; // At a limit, or the directory is gone: the next command goes cold.
      }
      const entry = { child, key, pipe: stdinPipe(child.pid) };
      waiting = entry;
      void child.status.then(() => {
        if (waiting !== entry) return;
        waiting = undefined;
        end(child);
      });
    },
  };
}

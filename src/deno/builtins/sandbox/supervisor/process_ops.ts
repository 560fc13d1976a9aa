import type { SupervisorContext, SupervisorOps } from "./supervisor_context.ts";

/**
 * The supervisor's process operations: `exec` (a bash command: its output as `stream` frames 1
 * and 2, then `exit`), `spawn` (a background process with stdin, same frames), `cancel` (an
 * `exec` or `spawn`), `signal` (a background process) and `stdin` (write to or `close` it).
 * Self-contained: its source text runs inside the sandbox.
 *
 * @param context The supervisor's shared context.
 * @returns The operations.
 */
export function processOps(context: SupervisorContext): SupervisorOps {
  const { send, processIds, kill } = context;
  const encoder = new TextEncoder();
  const runs = new Map<
    number,
    {
      cancel: () => void;
      signal?: (name: Deno.Signal) => void;
      stdin?: WritableStreamDefaultWriter<Uint8Array>;
    }
  >();
  // Ends a command: its shell and, when no other command runs, every process of the sandbox but
  // the supervisor (its background children too, also those that started their own session).
  // While other commands run, a command's leftover children live on until the last one ends.
  // Nothing is put in the command's environment to find its processes, and no process group is
  // made (a detached spawn forks the whole supervisor and triples the cost of a short command).
  const reap = async (shell: number) => {
    kill(shell);
    try {
      for (let round = 0; round < 5 && runs.size === 0; round++) {
        const pids = processIds().filter((pid) => pid !== warm?.child.pid);
        if (pids.length === 0) return;
        pids.forEach(kill);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    } catch {
      // The sandbox's /proc went away: the session is ending.
    }
  };
  const signalNumber = (signal: string) =>
    ({ SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGSEGV: 11, SIGPIPE: 13, SIGTERM: 15 })[
      signal
    ] ?? 9;
  const exitCode = (status: Deno.CommandStatus) =>
    status.signal === null ? status.code : 128 + signalNumber(status.signal);
  const bash = (request: Record<string, unknown>, background: boolean, script?: string) =>
    new Deno.Command("bash", {
      args: ["-c", script ?? String(request.prefix ?? "") + String(request.command)],
      cwd: String(request.cwd),
      env: request.env as Record<string, string>,
      clearEnv: true,
      detached: background,
      stdin: background || script !== undefined ? "piped" : "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();

  // Every `exec` runs in a shell started with the limits prefix that then reads the command's
  // length and text from its stdin and becomes \`bash -c <command>\` with stdin from /dev/null
  // (\`exec\`: the same process, $0, environment and SHLVL as a bash spawned for the command).
  // After a command ends, the next shell is started ahead (same prefix, directory and
  // environment): it has moved itself into the session's limited cgroup and set its rlimits (the
  // costly part of a short command) before the next command arrives. It is used only when that
  // command has the same prefix, environment and directory (same inode); it is never reaped as a
  // leftover of a command.
  const SHELL = 'IFS= read -r __n || exit 0; LC_ALL=C IFS= read -r -N "$__n" __c || exit 0; ' +
    'exec "$BASH" -c "$__c" </dev/null';
  interface Shell {
    child: Deno.ChildProcess;
    key: string;
    ino: number | null;
    ended: boolean;
  }
  let warm: Shell | undefined;
  const keyOf = (request: Record<string, unknown>) =>
    JSON.stringify([request.prefix ?? "", request.cwd, request.env]);
  const startShell = (request: Record<string, unknown>): Shell => {
    const ino = Deno.statSync(String(request.cwd)).ino;
    const child = bash(request, false, String(request.prefix ?? "") + SHELL);
    const shell = { child, key: keyOf(request), ino, ended: false };
    void child.status.then(() => {
      shell.ended = true;
      if (warm === shell) warm = undefined;
    });
    return shell;
  };
  const prepareWarm = (request: Record<string, unknown>) => {
    if (warm !== undefined) return;
    try {
      warm = startShell(request);
    } catch {
      // No shell ahead: the next command starts its own.
    }
  };
  // The shell started ahead, when it fits this command; else it is killed.
  const takeWarm = (request: Record<string, unknown>) => {
    const shell = warm;
    warm = undefined;
    if (shell === undefined) return undefined;
    let fits = false;
    try {
      fits = !shell.ended && shell.key === keyOf(request) &&
        Deno.statSync(String(request.cwd)).ino === shell.ino;
    } catch {
      // The directory is gone: a fresh start reports it.
    }
    if (fits) return shell;
    kill(shell.child.pid);
    return undefined;
  };
  const run = (request: Record<string, unknown>) => {
    const text = encoder.encode(String(request.command));
    // Bash cannot hold a NUL byte: spawned as before, which refuses it.
    if (text.includes(0)) return bash(request, false);
    const shell = takeWarm(request) ?? startShell(request);
    const writer = shell.child.stdin.getWriter();
    void writer.write(encoder.encode(`${text.length}\n`)).then(() => writer.write(text))
      .then(() => writer.close()).catch(() => {});
    return shell.child;
  };

  const exec = async (request: Record<string, unknown>) => {
    const id = Number(request.id);
    const child = run(request);
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
    await send({ id, exit: { code: exitCode(status), timedOut, cancelled } });
    prepareWarm(request);
  };

  // A background process: its own process group, stdin open, output streamed until it ends;
  // then what it left in its group is killed (as when its own sandbox ended).
  const spawn = async (request: Record<string, unknown>) => {
    const id = Number(request.id);
    const child = bash(request, true);
    const group = (name: Deno.Signal) => {
      try {
        Deno.kill(-child.pid, name);
      } catch {
        // Gone already.
      }
    };
    runs.set(id, { cancel: () => group("SIGKILL"), signal: group, stdin: child.stdin.getWriter() });
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
    await send({ id, exit: { code: exitCode(status), timedOut: false, cancelled: false } });
  };

  return {
    exec,
    spawn,
    cancel: (request) => {
      runs.get(Number(request.target))?.cancel();
      return send({ id: request.id, ok: {} });
    },
    signal: (request) => {
      const name = String(request.signal);
      if (name !== "SIGTERM" && name !== "SIGKILL" && name !== "SIGINT") {
        throw new TypeError("unknown signal");
      }
      runs.get(Number(request.target))?.signal?.(name);
      return send({ id: request.id, ok: {} });
    },
    stdin: async (request, body) => {
      const writer = runs.get(Number(request.target))?.stdin;
      if (writer === undefined) throw new TypeError("no such process");
      if (request.close === true) await writer.close();
      else await writer.write(body);
      return send({ id: request.id, ok: {} });
    },
  };
}

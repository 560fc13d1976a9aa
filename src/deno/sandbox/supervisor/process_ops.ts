import type { Received } from "../protocol.ts";
import type { SupervisorContext, SupervisorOps } from "./supervisor_context.ts";

/**
 * The supervisor's process operations: `exec` (a bash command: its output as `stream` frames 1
 * and 2, then `exit`), `spawn` (a background process with stdin,
 * same frames), `cancel` (an `exec` or `spawn`), `signal` (a background process) and `stdin`
 * (write to or `close` it).
 * Self-contained: its source text runs inside the sandbox.
 *
 * @param context The supervisor's shared context.
 */
export function processOps(context: SupervisorContext): SupervisorOps {
  const { send, processIds, kill, cgroups } = context;
  const runs = new Map<
    number,
    {
      cancel: () => void;
      signal?: (name: Deno.Signal) => void;
      stdin?: WritableStreamDefaultWriter<Uint8Array>;
    }
  >();
  // Ends a command: its shell (unless it ended already: its pid may be another process's by
  // now) and, when no other command runs, every process of the sandbox but the supervisor (its
  // background children too, also those that started their own session). While other commands
  // run, a command's leftover children live on until the last one ends. Nothing is put in the
  // command's environment to find its processes, and no process group is made (a detached spawn
  // forks the whole supervisor and triples the cost of a short command). With a cgroup, every
  // process a command starts is in it and cannot leave (only its files are bound): when it is
  // empty nothing is left to kill, and the listing of /proc is skipped.
  const reap = async (shell: number, ended: boolean) => {
    if (!ended) kill(shell);
    try {
      for (let round = 0; round < 5 && runs.size === 0 && commandsLeft(); round++) {
        const pids = processIds();
        if (pids.length === 0) return;
        pids.forEach(kill);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    } catch {
      // The sandbox's /proc went away: the session is ending.
    }
  };
  // Whether a process of a command may be left: without a cgroup, always (then /proc tells).
  // A process outside the sandbox's PID namespace (the wrapper's keeper) is not listed, or
  // listed as 0.
  const commandsLeft = () => {
    try {
      return cgroups.length === 0 ||
        new TextDecoder().decode(Deno.readFileSync(cgroups[0])).split("\n")
          .some((line) => line !== "" && line !== "0");
    } catch {
      return true;
    }
  };
  // First of all, the command's shell moves itself into the limited cgroups (bash runs `echo`
  // itself: nothing is forked before); when it cannot, the command does not run.
  const enter = cgroups.length === 0
    ? ""
    : `{ ${
      cgroups.map((file) => `echo 0 > '${file}'`).join(" && ")
    }; } 2>/dev/null || { echo "toolroute: the command could not enter the sandbox's resource limits (cgroup); it was not run" >&2; exit 126; }; `;
  // Linux's signal numbers: a shell killed by a signal exits with 128 + its number, as bash
  // reports a child's (SIGXCPU from the CPU limit: 152).
  const signals = ("HUP INT QUIT ILL TRAP ABRT BUS FPE KILL USR1 SEGV USR2 PIPE ALRM TERM STKFLT " +
    "CHLD CONT STOP TSTP TTIN TTOU URG XCPU XFSZ VTALRM PROF WINCH IO PWR SYS").split(" ");
  const exitCode = (status: Deno.CommandStatus) => {
    if (status.signal === null) return status.code;
    const index = signals.indexOf(status.signal.slice(3));
    return 129 + (index < 0 ? signals.indexOf("KILL") : index);
  };
  // Killed (137: by SIGKILL, or a shell whose child was) while the cgroup's OOM kill count rose:
  // the memory limit. Any other SIGKILL (its own `kill -9`, a reaper's) is not reported so.
  const exitOf = (status: Deno.CommandStatus, oomBefore: number | undefined) => {
    const code = exitCode(status);
    const after = code === 137 && oomBefore !== undefined ? context.oomKills?.() : undefined;
    return after !== undefined && after > oomBefore! ? { code, oom: true } : { code };
  };
  // Variables bash acts on at its start, before the script's first word: BASH_ENV (and ENV) name
  // a file it sources, SHELLOPTS/BASHOPTS with xtrace expand PS4 (command substitutions). One
  // naming a file the model can write would run outside the limits, so the shell starts without
  // them and gets them back once inside (BASH_ENV's file is then sourced, its value unexpanded).
  const quoted = (value: string) => `'${value.replaceAll("'", "'\\''")}'`;
  const startup = (env: Record<string, string>) => {
    const clean = { ...env };
    let restore = "";
    for (const name of ["SHELLOPTS", "BASHOPTS", "PS4", "ENV", "BASH_ENV"]) {
      const value = clean[name];
      if (value === undefined) continue;
      delete clean[name];
      const options = value.split(":").filter((option) => option !== "").map(quoted);
      if (name === "SHELLOPTS") restore += options.map((o) => `set -o ${o} 2>/dev/null; `).join("");
      else if (name === "BASHOPTS") {
        restore += options.map((o) => `shopt -s ${o} 2>/dev/null; `).join("");
      } else restore += `export ${name}=${quoted(value)}; `;
    }
    if (env.BASH_ENV) restore += `[ -r "$BASH_ENV" ] && . "$BASH_ENV"; `;
    return { clean, restore };
  };
  // bash from the supervisor's own PATH (the host's, set by the launch): a command's PATH is its
  // config's, which may hold no bash (a stdio server started by its full path).
  const shell = (Deno.env.get("PATH") ?? "").split(":").map((dir) => `${dir}/bash`)
    .find((path) => {
      try {
        return path.startsWith("/") && Deno.statSync(path).isFile;
      } catch {
        return false;
      }
    }) ?? "bash";
  // A process given the command's own pipes (fds 6, 7 and 8) moves them to 0, 1 and 2 first
  // and keeps no other descriptor of them.
  const bash = (
    request: Received<"exec"> | Received<"spawn">,
    background: boolean,
    passed = false,
  ) => {
    const { clean, restore } = startup(request.env as Record<string, string>);
    const own = passed ? "exec 0<&6 1>&7 2>&8 6<&- 7>&- 8>&-; " : "";
    const io = passed ? "null" : "piped";
    return new Deno.Command(shell, {
      args: ["-c", own + enter + String(request.prefix ?? "") + restore + String(request.command)],
      cwd: String(request.cwd),
      env: clean,
      clearEnv: true,
      detached: background,
      stdin: background && !passed ? "piped" : "null",
      stdout: io,
      stderr: io,
    }).spawn();
  };

  const exec = async (request: Received<"exec">) => {
    const id = Number(request.id);
    let timedOut = false;
    let cancelled = false;
    let end = () => {};
    runs.set(id, { cancel: () => (cancelled = true, end()) });
    const timer = setTimeout(() => {
      timedOut = true;
      end();
    }, Number(request.timeoutMs));
    let started: Deno.ChildProcess;
    const oomBefore = context.oomKills?.();
    try {
      started = bash(request, false);
    } catch (error) {
      clearTimeout(timer);
      runs.delete(id);
      throw error;
    }
    const child = started;
    const stop = new AbortController();
    end = () => void reap(child.pid, false);
    if (cancelled || timedOut) end();
    const pump = async (stream: ReadableStream<Uint8Array>, which: 1 | 2) => {
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
    await reap(child.pid, true);
    const grace = setTimeout(() => stop.abort(), 250);
    await pumps;
    clearTimeout(grace);
    await send({ id, exit: { ...exitOf(status, oomBefore), timedOut, cancelled } });
  };

  // A background process: its own process group, stdin open, output streamed until it ends;
  // then what it left in its group is killed (as when its own sandbox ended).
  const spawn = async (request: Received<"spawn">) => {
    const id = Number(request.id);
    const release = request.stdio === "passed" ? context.takeStdio?.() : undefined;
    if (request.stdio === "passed" && release === undefined) {
      throw new TypeError("no pipes were passed to the sandbox for this process");
    }
    let child: Deno.ChildProcess;
    const oomBefore = context.oomKills?.();
    try {
      child = bash(request, true, release !== undefined);
    } finally {
      release?.();
    }
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
      stdin: release === undefined ? child.stdin.getWriter() : undefined,
    });
    const pump = async (stream: ReadableStream<Uint8Array>, which: 1 | 2) => {
      for await (const chunk of stream) await send({ id, stream: which }, chunk);
    };
    const pumps = Promise.allSettled(
      release === undefined ? [pump(child.stdout, 1), pump(child.stderr, 2)] : [],
    );
    const status = await child.status;
    group("SIGKILL");
    runs.get(id)?.stdin?.abort().catch(() => {});
    runs.delete(id);
    await reap(child.pid, true);
    await pumps;
    await send({ id, exit: { ...exitOf(status, oomBefore), timedOut: false, cancelled: false } });
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

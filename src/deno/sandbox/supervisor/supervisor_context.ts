import type { Received, SupervisorAnswer, SupervisorOpName } from "../protocol.ts";

/**
 * One operation of the supervisor: serves a request (of the shape `protocol.ts` gives it) and
 * sends its answer (`ok` or `exit`) with `context.send`. A thrown error becomes the request's
 * `error` answer.
 */
export type SupervisorOp<Op extends SupervisorOpName = SupervisorOpName> = (
  request: Received<Op>,
  body: Uint8Array,
) => Promise<unknown>;

/** A family of operations, by name (the request's `op`). */
export type SupervisorOps = { readonly [Op in SupervisorOpName]?: SupervisorOp<Op> };

/**
 * What every operation family shares inside the supervisor. Families are functions of this
 * context that return their operations (see `supervisor_script.ts`): each must be
 * self-contained, using nothing but its argument and globals, because its source text is what
 * runs inside the sandbox.
 */
export interface SupervisorContext {
  /**
   * Sends one frame; frames are written in the order of the calls. With `hold`, a frame that fits
   * the kept buffer (64 KiB with the frames held before it) may wait to be written with the next
   * frame sent, in one write: a search's small answer wakes the host once, not once per frame.
   * Every operation ends with a frame sent without `hold` (its final answer), which writes them.
   */
  send(answer: SupervisorAnswer, body?: Uint8Array, hold?: boolean): Promise<unknown>;
  /**
   * The ids of every process of the sandbox but the supervisor (and the namespace's init); none
   * outside a bubblewrap PID namespace.
   */
  processIds(): number[];
  /** Kills one process; one that is gone already is not an error. */
  kill(pid: number): void;
  /**
   * The files a command's shell writes `0` to, to move itself into the session's limited
   * cgroups (`/.toolroute/cg/<n>`, bound by the resource-limit wrapper); none without a cgroup.
   * Reading the first lists the processes (v2) or threads (v1) in them.
   */
  readonly cgroups: readonly string[];
  /**
   * How many processes the kernel's OOM killer has killed in the session's limited cgroup (its
   * `oom_kill` count, bound read-only at `/.toolroute/oom` by the resource-limit wrapper);
   * `undefined` without a cgroup (or a kernel that does not count them). A context of fakes may
   * omit it.
   */
  oomKills?(): number | undefined;
  /**
   * Registers work that goes on outside any request (the proxy's bridge): until it settles, the
   * supervisor never waits for its input on the main thread, so the work always gets the event
   * loop. Given by the supervisor's main loop (`supervisorMain`); a context of fakes may omit it.
   */
  hold?(work: Promise<unknown>): void;
  /**
   * Takes the long-lived command's own pipes, once (on fds 6, 7 and 8, see `supervisorMain`):
   * returns what closes the supervisor's copies once the command holds them, or `undefined` when
   * there are none (or they were taken). Given by `supervisorMain`; a context of fakes may omit it.
   */
  takeStdio?(): (() => void) | undefined;
}

/**
 * Makes the supervisor's shared context. Never called in the host: its source text runs inside
 * the sandbox.
 */
export function supervisorContext(): SupervisorContext {
  const encoder = new TextEncoder();
  const empty = new Uint8Array();
  const out = new Uint8Array(64 * 1024);
  // The bytes of `out` held by frames sent with `hold`, not written yet.
  let held = 0;
  // Inside the sandbox's PID namespace, process 1 is bubblewrap. Anywhere else (a supervisor
  // started by mistake on the host) the process list is the host's: then nothing is ever killed.
  let inSandbox = false;
  try {
    inSandbox = Deno.readTextFileSync("/proc/1/comm") === "bwrap\n";
  } catch {
    // No /proc: nothing to list.
  }
  // The limited cgroups' files, found once: the wrapper binds them before the sandbox starts.
  const cgroups: string[] = [];
  try {
    for (const entry of Deno.readDirSync("/.toolroute/cg")) {
      cgroups.push(`/.toolroute/cg/${entry.name}`);
    }
  } catch {
    // No cgroup: rlimits only.
  }
  cgroups.sort();
  return {
    cgroups,
    oomKills() {
      try {
        const found = /^oom_kill (\d+)$/m.exec(Deno.readTextFileSync("/.toolroute/oom"));
        return found === null ? undefined : Number(found[1]);
      } catch {
        return undefined;
      }
    },
    // Synchronous: a frame is written whole before the next one (no interleaving, no queue),
    // and skipping the thread pool saves a round of scheduling per answer. The host reads its
    // end of the pipe all the time, so a full pipe only waits for it to catch up.
    // A frame is made in one buffer kept for the next, after the frames held (a larger one gets
    // a buffer of its own, the held frames copied first); held frames never pass the kept one.
    send(header, body = empty, hold = false) {
      const json = JSON.stringify(header);
      const most = held + 8 + json.length * 3 + body.length;
      let frames = out;
      if (most > out.length) {
        frames = new Uint8Array(most);
        frames.set(out.subarray(0, held));
      }
      const length = encoder.encodeInto(json, frames.subarray(held + 8)).written;
      const view = new DataView(frames.buffer);
      view.setUint32(held, length);
      view.setUint32(held + 4, body.length);
      frames.set(body, held + 8 + length);
      const end = held + 8 + length + body.length;
      if (hold && frames === out) {
        held = end;
        return Promise.resolve();
      }
      held = 0;
      for (let at = 0; at < end;) at += Deno.stdout.writeSync(frames.subarray(at, end));
      return Promise.resolve();
    },
    processIds() {
      const ids: number[] = [];
      if (!inSandbox) return ids;
      // Synchronous: the sandbox's /proc lists a handful of entries.
      for (const entry of Deno.readDirSync("/proc")) {
        const pid = Number(entry.name);
        if (Number.isInteger(pid) && pid > 1 && pid !== Deno.pid) ids.push(pid);
      }
      return ids;
    },
    kill(pid) {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch {
        // Gone already.
      }
    },
  };
}

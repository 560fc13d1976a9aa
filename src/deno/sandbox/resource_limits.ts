/**
 * Bounds of one sandbox session: its processes, memory, CPU time of background processes, and
 * what its commands may write.
 */
export interface ResourceLimits {
  /** Most processes (and threads) alive in the session at once. */
  readonly processes: number;
  /** Most memory, in MiB: of the whole session under a cgroup, of each process otherwise. */
  readonly memoryMiB: number;
  /**
   * Most MiB of each of the session's in-memory file systems: `/tmp`, the home directory and
   * `/dev/shm` (each a tmpfs of this size; needs bubblewrap 0.7 or later).
   */
  readonly tmpMiB: number;
  /**
   * Largest file, in MiB, a command may write or extend (RLIMIT_FSIZE: the write past it fails
   * with `EFBIG`); a bound per file, not on the workspace's total (see docs/sandbox.md).
   */
  readonly fileMiB: number;
  /**
   * CPU seconds of each process of a background command (RLIMIT_CPU: the kernel stops it past
   * them); a foreground command's are its deadline.
   */
  readonly backgroundCpuSeconds: number;
  /**
   * Most MiB the session's commands may add to the workspace in all (its disk usage, `du`, over
   * what it held at the first sandboxed command in this process): a command that passes it is
   * stopped, and commands are refused until files are deleted (see docs/sandbox.md).
   */
  readonly diskMiB: number;
}

/**
 * The prefix of every command run in a session: hard limits the command cannot raise. (The
 * move into the session's limited cgroup comes before it, written by the supervisor, which
 * knows whether the session has one: see `supervisor/process_ops.ts`.)
 * `-u` (RLIMIT_NPROC) counts every process of the user on the host and does not bind uid 0;
 * `-d` (RLIMIT_DATA) bounds each process's data (heap and anonymous mappings) without counting
 * the address space that runtimes such as V8 only reserve; `-f` (RLIMIT_FSIZE, in KiB) fails a
 * write or `truncate` past `fileMiB` with `EFBIG`; `-t` (RLIMIT_CPU) stops a process after the
 * command's deadline in CPU seconds, or after `backgroundCpuSeconds` for a background process.
 *
 * @param timeoutMs The command's deadline (none: a background process).
 * @returns Bash code ending in `;`.
 */
export function limitPrefix(limits: ResourceLimits, timeoutMs?: number): string {
  const kib = limits.memoryMiB * 1024;
  const cpu = timeoutMs === undefined
    ? limits.backgroundCpuSeconds
    : Math.max(1, Math.ceil(timeoutMs / 1000));
  return `ulimit -HS -u ${limits.processes} -d ${kib} -f ${
    limits.fileMiB * 1024
  } -t ${cpu} 2>/dev/null; `;
}

// Run by bash around bubblewrap. Where a cgroup is writable (v2 with pids and memory, else v1),
// the session gets toolroute-<id>/sup (bubblewrap and the supervisor: unlimited, so that a
// command cannot starve the supervisor of threads) and toolroute-<id>/cmd (the limits); the
// cmd cgroup's file that moves a writer of "0" there is bound into the sandbox at
// /.toolroute/cg/<n>, where the supervisor has each command's shell move itself first:
// cgroup.procs on v2, tasks on v1 (there "0" moves the writing thread alone, which skips the
// kernel's global threadgroup lock and its RCU grace period, which cost each command a wait
// when commands are spaced out; the shell is single-threaded, so the whole process moves). A v2
// hierarchy mounted with nsdelegate is not used: the sandbox's own cgroup namespace (rooted at
// sup) would forbid that move. It reports the kind on stderr as the first line, runs bubblewrap
// as a child until it ends, the wrapper gets TERM or the host is gone, then removes the
// cgroups; leftovers of ended sessions are removed on the way.
const CGROUP_WRAPPER = `
p=$1 m=$2 n=toolroute-$$-$RANDOM; shift 2; made=() binds=() cmds=() keeper= oom=
command -v "$1" >/dev/null || { echo "bwrap: bubblewrap (bwrap) is not installed" >&2; exit 1; }
# A leftover is a session whose wrapper (the pid in its name) is gone and whose sup is empty or
# gone (bubblewrap ended): a running session's cmd is empty whenever no command runs, and a
# starting one's sup too until it enters it; removing either would leave its commands no limits.
sweep() { for d in "$1"/toolroute-*; do
  w=\${d##*/toolroute-}; w=\${w%%-*}
  [[ $w =~ ^[0-9]+$ && -e /proc/$w ]] && continue
  [ -d "$d" ] && { [ ! -d "$d/sup" ] || rmdir "$d/sup"; } 2>/dev/null && rmdir "$d/cmd" "$d" 2>/dev/null
done; }
session() { # $1: hierarchy, $2: controllers to enable below (v2), $3: the file that moves a
  # writer (bound for the commands; the wrapper, single-threaded, moves itself through it too)
  mkdir "$1/$n" "$1/$n/sup" "$1/$n/cmd" 2>/dev/null || return 1
  made+=("$1")
  [ -z "$2" ] || echo "$2" > "$1/$n/cgroup.subtree_control" || return 1
  echo $$ > "$1/$n/sup/$3" &&
    binds+=(--bind "$1/$n/cmd/$3" "/.toolroute/cg/$((\${#binds[@]} / 3))") && cmds+=("$1/$n/cmd")
}
v2=/sys/fs/cgroup; [ -f $v2/cgroup.controllers ] || v2=/sys/fs/cgroup/unified
kind=none sub=
[ -f "$v2/cgroup.subtree_control" ] && read -r sub < "$v2/cgroup.subtree_control"
while read -r _ at _ opts _; do
  [ "$at" = "$v2" ] && [[ ",$opts," == *,nsdelegate,* ]] && sub=
done < /proc/self/mounts
if [[ " $sub " == *" pids "* && " $sub " == *" memory "* ]]; then
  sweep "$v2"
  if session "$v2" "+pids +memory" cgroup.procs; then
    echo "$p" > "$v2/$n/cmd/pids.max" && echo "$m" > "$v2/$n/cmd/memory.max" && kind=cgroup2
    echo 0 > "$v2/$n/cmd/memory.swap.max" 2>/dev/null
    oom="$v2/$n/cmd/memory.events"
  fi
fi
if [ $kind = none ] && [ -w /sys/fs/cgroup/pids ] && [ -w /sys/fs/cgroup/memory ]; then
  sweep /sys/fs/cgroup/pids; sweep /sys/fs/cgroup/memory
  if session /sys/fs/cgroup/pids "" tasks && session /sys/fs/cgroup/memory "" tasks; then
    echo "$p" > "/sys/fs/cgroup/pids/$n/cmd/pids.max" &&
      echo "$m" > "/sys/fs/cgroup/memory/$n/cmd/memory.limit_in_bytes" && kind=cgroup1
    echo "$m" > "/sys/fs/cgroup/memory/$n/cmd/memory.memsw.limit_in_bytes" 2>/dev/null
    oom="/sys/fs/cgroup/memory/$n/cmd/memory.oom_control"
  fi
fi
[ $kind = none ] && binds=()
# Its OOM kill count (oom_kill in memory.events on v2, memory.oom_control on v1), read-only: the
# supervisor tells a kill at the memory limit from another SIGKILL by it.
[ $kind != none ] && [ -f "$oom" ] && binds+=(--ro-bind "$oom" /.toolroute/oom)
# While the session lives, a process of the wrapper's stays in each cmd cgroup (outside the
# sandbox's PID namespace: commands do not see it): an empty cmd cgroup would look like a
# leftover to the sweep of another session (older versions removed any empty one), and its
# commands would then be refused. It ends with the wrapper (checked every second).
if [ $kind != none ]; then
  ( for c in "\${cmds[@]}"; do echo $BASHPID > "$c/cgroup.procs" || exit; done
    exec 4<> <(:); while kill -0 $$ 2>/dev/null; do read -t 1 -u 4; done ) </dev/null >/dev/null 2>&1 &
  keeper=$!
fi
echo "toolroute-limits: $kind" >&2
program=$1 host=$PPID init=; shift
# bubblewrap in the background with this stdin: TERM (the host closing the session) or the
# host's end (even by SIGKILL) kills it; then the cgroups are removed.
"$program" "\${binds[@]}" "$@" <&0 &
pid=$!
# Its child is the init of the sandbox's PID namespace, noted before bubblewrap is killed.
# (No \`read\` here: one in the trap would disturb the loop's interrupted \`read\`.)
# Once only: the host repeats its TERM (one that lands just before \`wait\` blocks is not seen until
# the next signal), and a second look would find bubblewrap gone and forget the init.
stop() { [ -n "$init" ] && return; init=$(< "/proc/$pid/task/$pid/children"); init=\${init%% *}; kill -KILL $pid; } 2>/dev/null
trap stop TERM
exec 4<> <(:)
# The host's end is polled by a watcher that sends the wrapper TERM (and ends once the wrapper is
# gone: then it is no longer the watcher's parent); the wrapper itself waits on bubblewrap, so a
# session that ends, or is stopped (the trap interrupts wait), is over at once.
( me=$BASHPID
  ours() { local s; read -r s < "/proc/$me/stat"; s=\${s##*) }; s=\${s#* }; [ "\${s%% *}" = $$ ]; }
  while ours && kill -0 $host; do read -t 1 -u 4; done
  ours && kill -TERM $$ ) </dev/null >/dev/null 2>&1 &
watcher=$!
# Not this shell's jobs (their kill at the end would be reported on the session's stderr).
disown $watcher \${keeper:+$keeper}
rc=
while kill -0 $pid 2>/dev/null; do wait $pid; rc=$?; done
# Ended (and reaped) before the first look: its status is still this shell's to ask for.
[ -n "$rc" ] || { wait $pid; rc=$?; }
# A wait the trap interrupted says 128+TERM: bubblewrap's own status, if it is still to be had.
[ "\${rc:-0}" -gt 128 ] && { wait $pid 2>/dev/null; r=$?; [ $r = 127 ] || rc=$r; }
kill -KILL $watcher 2>/dev/null
# A killed bubblewrap's init ends by --die-with-parent: the kernel kills every process of the
# namespace (those that left their session or nested their own namespace too) and ends the init
# last. The session ends once it has (gone, or a zombie nobody reaps), so nothing of it runs on.
[ -z "$init" ] || for i in {1..100}; do
  st=; { while read -r k v _; do [ "$k" = State: ] && st=$v && break; done < "/proc/$init/status"; } 2>/dev/null
  { [ -z "$st" ] || [ "$st" = Z ]; } && break
  read -t 0.05 -u 4
done
[ -z "$keeper" ] || kill -KILL $keeper 2>/dev/null
for h in "\${made[@]}"; do
  echo $$ > "$h/cgroup.procs" 2>/dev/null
  # The sandbox's processes are killed with it, but may take a moment to be gone.
  for i in 1 2 3 4 5 6 7 8 9 10; do
    rmdir "$h/$n/sup" "$h/$n/cmd" "$h/$n" 2>/dev/null && break
    read -t 0.1 <> <(:)
  done
done
exit $rc
`;

/**
 * Wraps the start of a session's bubblewrap so that the whole session lives in its own cgroup
 * with `pids.max` and a memory limit, where the kernel offers a writable cgroup (v2 with the
 * pids and memory controllers delegated, or v1 as root). Without one, only the per-command
 * rlimits of {@linkcode limitPrefix} hold.
 *
 * Requires `allow-run` permission for `bash`.
 *
 * @tags allow-run
 * The first line on stderr says which limits hold.
 *
 * @returns The wrapper for `SandboxSession.start`.
 */
export function withResourceLimits(
  limits: ResourceLimits,
): (program: string, args: string[]) => { program: string; args: string[] } {
  return (program, args) => ({
    program: "bash",
    args: [
      "-c",
      CGROUP_WRAPPER,
      "toolroute-limits",
      String(limits.processes),
      String(limits.memoryMiB * 1024 * 1024),
      program,
      ...args,
    ],
  });
}

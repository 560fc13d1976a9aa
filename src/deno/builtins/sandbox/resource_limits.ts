/** Bounds of one sandbox session: its processes, memory and CPU time. */
export interface ResourceLimits {
  /** Most processes (and threads) alive in the session at once. */
  readonly processes: number;
  /** Most memory, in MiB: of the whole session under a cgroup, of each process otherwise. */
  readonly memoryMiB: number;
}

/** The defaults: room for `npm install` or `cargo build`, not for a fork bomb. */
export const DEFAULT_LIMITS: ResourceLimits = Object.freeze({
  processes: 512,
  memoryMiB: 2048,
});

/**
 * The `ulimit` prefix of every command run in a session: hard limits the command cannot raise.
 * `-u` (RLIMIT_NPROC) counts every process of the user on the host and does not bind uid 0;
 * `-d` (RLIMIT_DATA) bounds each process's data (heap and anonymous mappings) without counting
 * the address space that runtimes such as V8 only reserve; `-t` (RLIMIT_CPU) stops a process
 * after the command's deadline in CPU seconds.
 *
 * @param limits The limits.
 * @param timeoutMs The command's deadline.
 * @returns Bash code ending in `;`.
 */
export function limitPrefix(limits: ResourceLimits, timeoutMs: number): string {
  const kib = limits.memoryMiB * 1024;
  const cpu = Math.max(1, Math.ceil(timeoutMs / 1000));
  return `ulimit -HS -u ${limits.processes} -d ${kib} -t ${cpu} 2>/dev/null; `;
}

// Run by bash around bubblewrap: a cgroup (v2, else v1 pids and memory) for the whole session
// when one is writable, reported on stderr as the first line; bubblewrap runs as a child so that
// the cgroup is removed when it ends (it dies with this shell: --die-with-parent). Leftover
// empty cgroups of sessions of a killed host are removed on the way.
const CGROUP_WRAPPER = `
p=$1 m=$2 n=toolroute-$$-$RANDOM; shift 2; made=()
command -v "$1" >/dev/null || { echo "toolroute-limits: missing" >&2; exit 127; }
try() { mkdir "$1/$n" 2>/dev/null && made+=("$1/$n") && echo $$ > "$1/$n/cgroup.procs"; }
sweep() { for d in "$1"/toolroute-*; do [ -d "$d" ] && rmdir "$d" 2>/dev/null; done; }
v2=/sys/fs/cgroup; [ -f $v2/cgroup.controllers ] || v2=/sys/fs/cgroup/unified
kind=none
if [ -f "$v2/cgroup.subtree_control" ] && grep -qw pids "$v2/cgroup.subtree_control" 2>/dev/null \\
  && grep -qw memory "$v2/cgroup.subtree_control"; then
  sweep "$v2"
  if try "$v2"; then
    echo "$p" > "$v2/$n/pids.max" && echo "$m" > "$v2/$n/memory.max" && kind=cgroup2
    echo 0 > "$v2/$n/memory.swap.max" 2>/dev/null
  fi
fi
if [ $kind = none ] && [ -w /sys/fs/cgroup/pids ] && [ -w /sys/fs/cgroup/memory ]; then
  sweep /sys/fs/cgroup/pids; sweep /sys/fs/cgroup/memory
  if try /sys/fs/cgroup/pids && try /sys/fs/cgroup/memory; then
    echo "$p" > "/sys/fs/cgroup/pids/$n/pids.max" &&
      echo "$m" > "/sys/fs/cgroup/memory/$n/memory.limit_in_bytes" && kind=cgroup1
    echo "$m" > "/sys/fs/cgroup/memory/$n/memory.memsw.limit_in_bytes" 2>/dev/null
  fi
fi
echo "toolroute-limits: $kind" >&2
"$@"
rc=$?
for ((i = \${#made[@]} - 1; i >= 0; i--)); do
  echo $$ > "\${made[i]%/*}/cgroup.procs" 2>/dev/null; rmdir "\${made[i]}" 2>/dev/null
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
 * @param limits The limits.
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

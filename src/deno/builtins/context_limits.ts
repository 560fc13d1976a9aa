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

/** The defaults: room for `npm install` or `cargo build`, not for a fork bomb or a full disk. */
export const DEFAULT_LIMITS: ResourceLimits = Object.freeze({
  processes: 512,
  memoryMiB: 2048,
  tmpMiB: 512,
  fileMiB: 1024,
  backgroundCpuSeconds: 3600,
  diskMiB: 8192,
});

/** Bounds of one sandbox's network proxy: what the host holds for one sandbox session. */
export interface ProxyLimits {
  /** Most connections from the sandbox open at once; more get `503 Service Unavailable`. */
  readonly maxConnections: number;
  /**
   * A connection through which nothing passed for this long is closed on both sides; a request
   * head must arrive whole within it.
   */
  readonly idleTimeoutMs: number;
}

/** The defaults: room for a package manager's parallel downloads, not for a flood. */
export const DEFAULT_PROXY_LIMITS: ProxyLimits = Object.freeze({
  maxConnections: 64,
  idleTimeoutMs: 60_000,
});

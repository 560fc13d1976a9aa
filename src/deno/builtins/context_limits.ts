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

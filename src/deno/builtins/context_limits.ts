import type { ResourceLimits } from "../sandbox/resource_limits.ts";

/** The defaults: room for `npm install` or `cargo build`, not for a fork bomb or a full disk. */
export const DEFAULT_LIMITS: ResourceLimits = Object.freeze({
  processes: 512,
  memoryMiB: 2048,
  tmpMiB: 512,
  fileMiB: 1024,
  backgroundCpuSeconds: 3600,
  diskMiB: 8192,
});

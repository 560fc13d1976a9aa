/** Top-level directories of Linux and macOS that hold the system, not a project. */
const SYSTEM_DIRS = new Set([
  "/bin",
  "/boot",
  "/dev",
  "/etc",
  "/home",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/media",
  "/mnt",
  "/opt",
  "/proc",
  "/root",
  "/run",
  "/sbin",
  "/srv",
  "/sys",
  "/tmp",
  "/usr",
  "/var",
  "/nix",
  "/snap",
  "/Users",
  "/System",
  "/Library",
  "/Applications",
  "/Volumes",
  "/private",
  "/cores",
]);

/**
 * Why a writable root is too broad, or `undefined` when it is not: `/`, a top-level system
 * directory (`/etc`, `/usr`, `/home`, `/tmp`, …), or a home directory itself (`/home/NAME`,
 * `/Users/NAME`, `/root`, or `$HOME` when Deno may read it). A folder inside any of them is fine.
 *
 * @param path An absolute, normalized path.
 * @returns The reason, or `undefined`.
 */
export function broadRootReason(path: string): string | undefined {
  if (path === "/") return "it is the root of the file system";
  if (SYSTEM_DIRS.has(path)) return "it is a top-level system directory";
  if (/^\/(?:home|Users)\/[^/]+$/.test(path) || path === homeDirectory()) {
    return "it is a home directory";
  }
  return undefined;
}

function homeDirectory(): string | undefined {
  // Only when already allowed: a context check never asks for a permission.
  if (Deno.permissions.querySync({ name: "env", variable: "HOME" }).state !== "granted") {
    return undefined;
  }
  const home = Deno.env.get("HOME");
  return home === undefined || home === "" || home === "/" ? undefined : home.replace(/\/+$/, "");
}

/**
 * Throws a `TypeError` when the workspace, with symlinks resolved, is too broad (see
 * {@linkcode broadRootReason}) and the context does not say `allowBroadRoots: true`. A workspace
 * Deno may not resolve is left to the per-call checks.
 *
 * Requires `allow-read` permission for the workspace.
 *
 * @tags allow-read
 * @param workspace The declared workspace.
 * @param allowBroadRoots The context's `allowBroadRoots`.
 */
export function assertRealRootNotBroad(workspace: string, allowBroadRoots: unknown): void {
  if (allowBroadRoots === true) return;
  let real: string;
  try {
    real = Deno.realPathSync(workspace);
  } catch {
    return;
  }
  const reason = broadRootReason(real);
  if (reason !== undefined) {
    throw new TypeError(
      `Cannot use built-in context: the workspace "${workspace}" leads to "${real}", which is too broad to write (${reason}); use a project folder, or set allowBroadRoots: true`,
    );
  }
}

/** A directory of the host shown in the sandbox. */
export interface BwrapMount {
  /** Where it really is on the host (symlinks resolved). */
  readonly source: string;
  /** Where the command sees it: the path the context declares. */
  readonly dest: string;
  /**
   * `dev:ino` of the source when it was found. When given, the sandbox checks that `dest` is that
   * very file before the command runs, and refuses to run it otherwise: a source swapped for a
   * symlink between the check and bubblewrap's mount (a racing background command) cannot bring
   * a host directory into the sandbox.
   */
  readonly identity?: string;
}

/** What the bubblewrap sandbox of one command shows and runs. */
export interface BwrapOptions {
  /** The workspace: bound read-write (none for a stdio server: its `roots`, if any). */
  readonly workspace?: BwrapMount;
  /** More directories bound read-write (a stdio server's roots). */
  readonly writableRoots?: readonly BwrapMount[];
  /** The read-only roots: bound read-only when they exist. */
  readonly readOnlyRoots: readonly BwrapMount[];
  /** Existing protected paths inside the workspace: bound read-only over the workspace's binding. */
  readonly protectedPaths?: readonly BwrapMount[];
  /**
   * Directories inside the workspace that lead to a protected entry: each bound read-write onto
   * itself, so it is a mount point the command cannot rename or remove (which would let it put
   * another file at the protected path).
   */
  readonly pinnedDirs?: readonly BwrapMount[];
  /** More host files or directories bound read-only (the session's runtime, its proxy socket). */
  readonly extras?: readonly BwrapMount[];
  /** An empty tmpfs for the session's supervisor runtime (its cache), outside `/tmp`. */
  readonly scratch?: string;
  /** An empty tmpfs for the command's home directory (a stdio server's), of `tmpfsBytes`. */
  readonly home?: string;
  /**
   * The size of each tmpfs the command can write (`/tmp`, `/dev/shm`, `scratch`), in bytes
   * (bubblewrap's `--size`, 0.7 or later); absent: the kernel's default (half the memory).
   */
  readonly tmpfsBytes?: number;
  /** The working directory, as the command sees it (inside the workspace). */
  readonly cwd: string;
  /** The program and arguments run inside, such as `["bash", "-c", "ls"]`. */
  readonly command: readonly string[];
}

/** System directories bound read-only when they exist on the host. */
export const BWRAP_SYSTEM_DIRS: readonly string[] = Object.freeze([
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
]);

/**
 * The few files of `/etc` a shell and the usual tools need, bound read-only when they exist:
 * the dynamic linker's cache, Debian's alternatives (`awk`, `editor`), user and group names,
 * the time zone, and the CA certificates an HTTPS client verifies an allowed host with (Debian's
 * and Red Hat's; not `/etc/ssl/private`). Nothing else of `/etc` is visible.
 */
export const BWRAP_ETC_FILES: readonly string[] = Object.freeze([
  "/etc/ld.so.cache",
  "/etc/ld.so.conf",
  "/etc/ld.so.conf.d",
  "/etc/alternatives",
  "/etc/passwd",
  "/etc/group",
  "/etc/nsswitch.conf",
  "/etc/localtime",
  "/etc/ssl/certs",
  "/etc/pki/ca-trust",
  "/etc/pki/tls/certs",
]);

interface Mount {
  readonly dest: string;
  readonly args: readonly string[];
}

/**
 * Builds the arguments of `bwrap` that run one command confined to the context's roots.
 *
 * The command gets fresh user, mount, PID, network, IPC, UTS and cgroup namespaces
 * (`--unshare-all`: no network at all), its own session (`--new-session`), no capabilities
 * (`--cap-drop ALL`, which matters when the host runs as root), and dies with the process that
 * started bubblewrap (`--die-with-parent`). `/proc` is read-only (`--remount-ro /proc`). Its file system is empty except for:
 * the workspace (read-write) and the read-only roots, each bound from its real path to the path
 * the context declares (so symlinks above them do not matter), the system directories and a few `/etc`
 * files (read-only), a fresh `/proc`, a minimal `/dev` (read-only but for its devices and an empty
 * `/dev/shm`) and a fresh, empty `/tmp`; `/tmp`, `/dev/shm` and `scratch` are each a tmpfs of
 * `tmpfsBytes` when given.
 * Existing protected paths (such as `.git`) are bound read-only over the workspace, so a command
 * cannot plant a git hook either; the directories leading to them are bound onto themselves, so
 * the command cannot rename one away and put another file at a protected path. Mounts are ordered parents first, so a workspace under `/tmp`
 * stays visible above the tmpfs and a read-only root inside the workspace stays read-only. Environment values are never put in
 * the arguments (they would be visible in the host's process list); pass them to the `bwrap`
 * process itself.
 *
 * @param options The roots, working directory and command.
 * @returns The arguments, without the `bwrap` program name.
 */
export function bwrapCommand(options: BwrapOptions): string[] {
  const size = options.tmpfsBytes === undefined ? [] : ["--size", String(options.tmpfsBytes)];
  const tmpfs = (dest: string): Mount => ({ dest, args: [...size, "--tmpfs", dest] });
  const bind = (flag: string) => ({ source, dest }: BwrapMount): Mount => ({
    dest,
    args: [flag, source, dest],
  });
  const mounts: Mount[] = [
    ...[...BWRAP_SYSTEM_DIRS, ...BWRAP_ETC_FILES]
      .map((path) => ({ dest: path, args: ["--ro-bind-try", path, path] })),
    { dest: "/proc", args: ["--proc", "/proc"] },
    { dest: "/dev", args: ["--dev", "/dev"] },
    // bubblewrap's /dev is a writable tmpfs of its own: read-only below (--remount-ro), with a
    // bounded /dev/shm for the programs that need one.
    tmpfs("/dev/shm"),
    tmpfs("/tmp"),
    ...options.readOnlyRoots.map(bind("--ro-bind-try")),
    ...(options.workspace === undefined ? [] : [options.workspace]).map(bind("--bind")),
    ...(options.writableRoots ?? []).map(bind("--bind")),
    ...(options.pinnedDirs ?? []).map(bind("--bind-try")),
    ...(options.protectedPaths ?? []).map(bind("--ro-bind-try")),
    ...(options.scratch === undefined ? [] : [tmpfs(options.scratch)]),
    ...(options.home === undefined ? [] : [tmpfs(options.home)]),
    ...(options.extras ?? []).map(bind("--ro-bind")),
  ];
  const checked = [...(options.pinnedDirs ?? []), ...(options.protectedPaths ?? [])]
    .filter((mount) => mount.identity !== undefined);
  const command = checked.length === 0 ? options.command : [
    "bash",
    "-c",
    VERIFY_MOUNTS,
    "toolroute-verify",
    String(checked.length),
    ...checked.flatMap((mount) => [mount.dest, mount.identity!]),
    ...options.command,
  ];
  const ordered = mounts
    .map((mount, index) => ({ mount, index, depth: depth(mount.dest) }))
    .sort((a, b) => a.depth - b.depth || a.index - b.index)
    .flatMap(({ mount }) => mount.args);
  return [
    "--unshare-all",
    "--die-with-parent",
    "--new-session",
    // Started by root, bubblewrap keeps root's capabilities in the host's user namespace (it
    // creates no user namespace then): drop them all, or a command could mknod and mount the
    // host's disk.
    "--cap-drop",
    "ALL",
    ...ordered,
    // Root owns /proc/sys/kernel/core_pattern and /proc/sysrq-trigger; without a read-only /proc
    // a command run by root could set core_pattern to a host program (host code execution).
    "--remount-ro",
    "/proc",
    // Nothing but /dev/shm in /dev is written: its tmpfs is not bounded by tmpfsBytes.
    "--remount-ro",
    "/dev",
    "--chdir",
    options.cwd,
    "--",
    ...command,
  ];
}

// Checks that each mount point is the file that was found (`dev:ino`), then runs the command.
const VERIFY_MOUNTS = `n=$1; shift; dests=(); ids=()
for ((i = 0; i < n; i++)); do dests+=("$1"); ids+=("$2"); shift 2; done
got=$(PATH=/usr/bin:/bin LC_ALL=C stat -L -c %d:%i -- "\${dests[@]}" 2>/dev/null)
want=$(printf '%s\\n' "\${ids[@]}")
if [ "$got" != "$want" ]; then
  echo "toolroute: a protected path changed while the sandbox started (a command renaming directories?); the command was not run" >&2
  exit 126
fi
exec "$@"`;

function depth(path: string): number {
  return path.split("/").filter((part) => part.length > 0).length;
}

import { SandboxMissing } from "./bwrap_missing.ts";
import { bwrapHostPath, bwrapSearchPath } from "./bwrap_search_path.ts";
import type { BwrapMount } from "./bwrap_command.ts";
import { commandNeeds, launcherRegistries } from "./command_needs.ts";
import { denoPackageMounts, runsDeno } from "./deno_package_mounts.ts";
import { DEFAULT_PROXY_LIMITS, NetworkProxy } from "./network_proxy.ts";
import { limitPrefix, type ResourceLimits, withResourceLimits } from "./resource_limits.ts";
import { SandboxSession } from "./sandbox_session.ts";
import { PROXY_ENV } from "./session_launch.ts";
import { spawnInSession } from "./session_process.ts";
import { stdioStandIn } from "./stdio_stand_in.ts";
import { within } from "./within.ts";

/** The sandbox of one long-lived command (a stdio MCP server), resolved by its caller. */
export interface CommandSandbox {
  /** Host folders it may read and write (each must exist). */
  readonly roots: readonly string[];
  /** Host paths it may read only. */
  readonly readOnly: readonly string[];
  /** The host names it may reach through the egress proxy; none: no network at all. */
  readonly allow?: readonly string[];
  /**
   * Whether an installing launcher (`npx`, `uvx`, …) also reaches its package registry (see
   * `commandNeeds`); default `true`. `false` when the config says `network: "none"`.
   */
  readonly registries?: boolean;
  /** The bounds of its whole sandbox. */
  readonly limits: ResourceLimits;
  /**
   * A fixed path for its egress proxy's socket (see `serverPaths`); default: a new temporary
   * folder's `proxy.sock`.
   */
  readonly socket?: string;
  /**
   * Its own package cache on the host (see `serverPaths`), made when missing and bound
   * read-write: npm's cache in `npm/`, uv's in `uv/`, Deno's `DENO_DIR` in `deno/` (with the
   * packages its lockfile names that the host's Deno cache holds, bound read-only there).
   * Default: none (a start downloads again).
   */
  readonly cache?: string;
}

/** The command to run: program, arguments, environment and working directory, as on the host. */
export interface SandboxedCommand {
  /** The program, found on the environment's `PATH`. */
  readonly command: string;
  /** Its arguments. */
  readonly args: readonly string[];
  /** Its whole environment (`PATH` and `HOME` as the host has them). */
  readonly env: Readonly<Record<string, string>>;
  /** Its working directory; used when it is inside a root or a read-only path. */
  readonly cwd?: string;
}

/** A command running in its own sandbox. */
export interface SandboxedChild {
  /** The process, in the shape of a `Deno.ChildProcess` (stdin, stdout, stderr, status, kill). */
  readonly child: Deno.ChildProcess;
  /**
   * Why the command ended, when its sandbox's limits say more than its exit code: a SIGKILL by
   * the kernel at the memory limit (its cgroup's OOM kill count rose), `killed by signal 9` for
   * any other; `undefined` otherwise.
   *
   * @param code The exit code.
   * @param stderr The end of its stderr.
   */
  limitReason(code: number, stderr: string): string | undefined;
}

// Where Debian and Ubuntu keep the CA certificates: the bundle and the hashed links, which lead
// to /usr/share/ca-certificates (shown with /usr).
const CA_FOLDERS = ["/etc/ssl/certs", "/etc/ca-certificates"];

/** The server's home inside its sandbox: an empty tmpfs of `tmpMiB`. */
export const SANDBOX_HOME = "/home/sandbox";

/**
 * Starts one long-lived command in a sandbox session of its own, the same sandbox `bash` runs
 * in (`SandboxSession`: bubblewrap with the ptrace filter, the supervisor, the cgroup and rlimit
 * limits, the egress proxy): the command is a background process of the supervisor, which
 * starts it, signals it and reports its end, but its stdin, stdout and stderr are the host's own
 * pipes, handed to bubblewrap at the launch (`stdioStandIn`): its bytes pass no supervisor. Its
 * sandbox shows the system
 * folders, its roots read-write, its read-only paths, the program, runtime and package caches
 * it needs ({@linkcode commandNeeds}) and the CA certificates read-only, its own package cache
 * read-write (`cache`, when given: npm's, uv's and Deno's), a fresh empty home (`HOME`, a tmpfs) and its
 * own `/tmp` (a tmpfs); it has its own PID namespace and no network but the proxy to `allow`
 * (whose socket alone is bound in). When the command ends, its session, cgroups and proxy are
 * removed.
 *
 * Throws `Deno.errors.NotFound` when the program is not found (on `PATH`, or at its path), and a
 * `SandboxMissing` when bubblewrap is not installed.
 *
 * Requires `allow-run` for `bash` and `bwrap`, `allow-read` for the roots and read-only paths
 * of the config, `allow-write` for its cache, and, with a network, `allow-read` and
 * `allow-write` for the proxy's socket folder, `allow-net` for the hosts and `unix:<socket>`,
 * and `allow-sys` for `uid` (see `listenAtSocket`).
 *
 * @tags allow-run, allow-read, allow-write
 * @param sandbox Its roots, read-only paths, network and limits.
 * @returns The running command.
 */
export async function spawnSandboxed(
  command: SandboxedCommand,
  sandbox: CommandSandbox,
): Promise<SandboxedChild> {
  const roots = sandbox.roots.map((root) => mountOf(root, true));
  if (sandbox.cache !== undefined) {
    for (const tool of ["npm", "uv", "deno"]) {
      await Deno.mkdir(`${sandbox.cache}/${tool}`, { recursive: true, mode: 0o700 });
    }
    roots.push({ source: sandbox.cache, dest: sandbox.cache });
  }
  // The command's own pipes, handed to bubblewrap at its launch (its bytes pass no supervisor),
  // are made while its needs are looked for, as the egress proxy starts (it needs only the
  // hosts): none of the three waits for another.
  const path = bwrapSearchPath(bwrapHostPath(command.env.PATH), roots);
  let standIn: ReturnType<typeof stdioStandIn> | undefined;
  let standInFailed: unknown;
  try {
    standIn = stdioStandIn(path);
  } catch (error) {
    standInFailed = error;
  }
  const hosts = [
    ...new Set([
      ...sandbox.allow ?? [],
      // A Deno command downloads only into a cache of its own: without one (no per-server
      // cache) it sees the host's read-only and its registries would serve nothing.
      ...(sandbox.registries === false ||
          (sandbox.cache === undefined && runsDeno(command.command))
        ? []
        : launcherRegistries(command.command)),
    ]),
  ];
  const [found, started] = await Promise.allSettled([
    commandNeeds(command, command.env),
    hosts.length === 0
      ? undefined
      : NetworkProxy.start(hosts, DEFAULT_PROXY_LIMITS, { socket: sandbox.socket }),
  ]);
  const proxy = started.status === "fulfilled" ? started.value : undefined;
  const giveUp = async (error: unknown): Promise<never> => {
    if (standIn !== undefined) await dropStandIn(standIn);
    await proxy?.close();
    throw error;
  };
  if (found.status === "rejected" || started.status === "rejected") {
    return giveUp(
      found.status === "rejected" ? found.reason : (started as PromiseRejectedResult).reason,
    );
  }
  const needs = found.value;
  if (needs.program === undefined) {
    // As a plain spawn says it: the caller names the PATH searched.
    return giveUp(new Deno.errors.NotFound(`${command.command} is not on PATH`));
  }
  if (standIn === undefined) {
    if (!(standInFailed instanceof Deno.errors.NotFound)) return giveUp(standInFailed);
    return giveUp(new SandboxMissing({ cause: standInFailed }));
  }
  // A Deno command downloads into its own cache, and takes what its lockfile names from the
  // host's cache where that holds it (bound read-only into its own).
  const denoDir = sandbox.cache !== undefined && runsDeno(command.command)
    ? `${sandbox.cache}/deno`
    : undefined;
  const hostPackages = denoDir === undefined ? [] : await denoPackageMounts(
    { args: command.args, projects: needs.readOnly },
    { own: denoDir, host: command.env.DENO_DIR || `${command.env.HOME}/.cache/deno` },
  ).catch(() => []);
  // What the command needs is bound as found (bubblewrap follows the source's links); what the
  // config lists, from its real path.
  const readOnly = [
    ...hostPackages,
    ...needs.readOnly.map((path) => ({ source: path, dest: path })),
    ...sandbox.readOnly.map((path) => mountOf(path, false)).filter((mount) => mount !== undefined),
    // The CA certificates, so that a Python or curl-based server verifies HTTPS through the
    // proxy (read-only roots are bound only when the host has them). /etc/ssl/private is not
    // among them.
    ...CA_FOLDERS.map((path) => ({ source: path, dest: path })),
  ];
  const limits = sandbox.limits;
  let session: SandboxSession;
  try {
    session = await SandboxSession.start({
      mounts: { readOnlyRoots: readOnly, writableRoots: roots, home: SANDBOX_HOME },
      path,
      startTimeoutMs: 30_000, // bubblewrap and the supervisor
      proxySocket: proxy?.socket,
      tmpfsBytes: limits.tmpMiB * 1024 * 1024,
      stdioPid: standIn.child.pid,
      wrap: withResourceLimits(limits),
    });
  } catch (error) {
    return giveUp(error);
  } finally {
    standIn.release();
  }
  session.onEnd(() => void proxy?.close());
  // Its working folder where the sandbox shows it (a root, a read-only path, or what its command
  // needs, such as the project of a script named relative to it); else its fresh home.
  const inside = (dir: string) =>
    [...sandbox.roots, ...sandbox.readOnly, ...needs.readOnly].some((root) => within(root, dir));
  const cwd = command.cwd !== undefined && inside(command.cwd) ? command.cwd : SANDBOX_HOME;
  const env = {
    ...command.env,
    HOME: SANDBOX_HOME,
    TMPDIR: "/tmp",
    // Its own cache, and npm takes what it holds without asking the registry again (a cold start
    // of `npx -y pkg` otherwise revalidates the package each time); a newer version comes when
    // the config names it, or once the cache is removed.
    ...(sandbox.cache === undefined ? {} : {
      npm_config_cache: `${sandbox.cache}/npm`,
      npm_config_prefer_offline: "true",
      npm_config_update_notifier: "false",
      UV_CACHE_DIR: `${sandbox.cache}/uv`,
    }),
    ...(denoDir === undefined ? {} : { DENO_DIR: denoDir }),
    ...(proxy === undefined ? {} : PROXY_ENV),
  };
  let oomKilled = false;
  // The command's end is reported once its whole session ended (every process of it is gone):
  // a leftover of this start must not run on while the next start checks and binds the cache.
  const child = spawnInSession({ session, release: () => session.close() }, {
    command: ["exec", ...[command.command, ...command.args].map(quoted)].join(" "),
    // Under a cgroup, the cgroup bounds the memory really used: the per-process RLIMIT_DATA
    // gets room over it, since V8 reserves more than a small limit at its start (a Deno server
    // under 256 MiB died at start, "Failed to reserve virtual memory for CodeRange").
    prefix: limitPrefix(
      session.limitsKind === "none" || session.limitsKind === undefined
        ? limits
        : { ...limits, memoryMiB: Math.max(4 * limits.memoryMiB, 4096) },
    ),
    cwd,
    env,
  }, { stdio: standIn.child, onExit: (exit) => oomKilled = exit.oom === true });
  // SIGKILL is the last word (the transport's close, a server that stopped answering): it ends
  // the whole sandbox, its own, from the host. Sent only through the supervisor, it never came
  // when the command had stopped the supervisor (same user, same PID namespace): the process
  // never ended and the gateway's close waited for ever.
  const signal = child.kill.bind(child);
  child.kill = (name: Deno.Signal = "SIGTERM") => {
    signal(name);
    if (name === "SIGKILL") void session.close();
  };
  return {
    child,
    limitReason(code, stderr) {
      // The kernel kills a cgroup's process with SIGKILL at its memory limit, and counts it (the
      // supervisor compares the count); any other SIGKILL (its own `kill -9`, its session's end)
      // is only a signal. Under rlimits only (no cgroup), an allocation past RLIMIT_DATA fails
      // and the runtime aborts.
      if (code === 137) {
        return oomKilled ? `killed: memory limit ${limits.memoryMiB} MiB` : "killed by signal 9";
      }
      if (/out of memory|Cannot allocate memory|MemoryError/i.test(stderr)) {
        return `out of memory at the memory limit of ${limits.memoryMiB} MiB`;
      }
      return undefined;
    },
  };
}

/** Ends a stand-in whose pipes no sandbox took, and lets its pipes go. */
async function dropStandIn(standIn: ReturnType<typeof stdioStandIn>): Promise<void> {
  standIn.release();
  await Promise.allSettled([
    standIn.child.stdin.abort(),
    standIn.child.stdout.cancel(),
    standIn.child.stderr.cancel(),
  ]);
}

function mountOf(path: string, writable: true): BwrapMount;
function mountOf(path: string, writable: false): BwrapMount | undefined;
function mountOf(path: string, writable: boolean): BwrapMount | undefined {
  try {
    return { source: Deno.realPathSync(path), dest: path };
  } catch (error) {
    if (!writable) return undefined; // A cache or runtime folder that is not there.
    throw new TypeError(
      `Cannot start the sandboxed server: its root ${path} cannot be opened (${
        error instanceof Error ? error.message : String(error)
      }); create it or remove it from "sandbox.roots"`,
    );
  }
}

function quoted(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

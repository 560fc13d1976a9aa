import { createHash } from "node:crypto";
import { hostEnv } from "./bwrap_search_path.ts";

/** The variable naming the user's own runtime folder, where the proxy sockets go when set. */
export const RUNTIME_DIR_VARIABLE = "XDG_RUNTIME_DIR";

/** Whose sandboxed server the paths are for: the config it comes from, its user and its id. */
export interface ServerIdentity {
  /** The config's path (what two serve processes of one config share). */
  readonly scope: string;
  /** The server's id. */
  readonly serverId: string;
  /** The user of a per-user server. */
  readonly userId?: string;
}

/** The host paths of one sandboxed server that outlive a start. */
export interface ServerPaths {
  /**
   * The folder of the proxy sockets of one config's servers for one host user: 0700, owned by
   * that user, under `$XDG_RUNTIME_DIR` (the user's own) when it is set and short enough (a Unix
   * socket's path has at most 107 bytes), else under `/tmp`, where another user may have taken
   * the name first: then the socket goes to a new private folder instead (`listenAtSocket`).
   */
  readonly socketFolder?: string;
  /** The server's egress proxy socket, in `socketFolder`. */
  readonly socket?: string;
  /**
   * The server's own package cache (npm's in `npm/`, uv's in `uv/`), under the host user's
   * `~/.cache/toolroute/servers/`; `undefined` without a home folder.
   */
  readonly cache?: string;
}

/**
 * Where a sandboxed server's proxy socket and package cache are: computed from the config's path,
 * the host user's id and home, the user id and the server id alone, so that `toolroute flags`
 * can list them before any server starts. A name is a hash, never a path taken from the config:
 * another server's or user's names cannot be guessed into, and the socket path stays short.
 *
 * @param identity The config, user and server.
 * @param host The host user's id and home folder.
 */
export function serverPaths(
  identity: ServerIdentity,
  host: { readonly uid?: number; readonly home?: string; readonly runtimeDir?: string },
): ServerPaths {
  const server = [identity.userId ?? "", identity.serverId];
  const name = `toolroute-${hash([identity.scope, String(host.uid)], 16)}`;
  const runtime = host.runtimeDir?.replace(/\/+$/, "");
  // The folder, a slash, 16 hex digits and ".sock" must fit a socket's 107 bytes.
  const usable = runtime !== undefined && runtime.startsWith("/") &&
    new TextEncoder().encode(`${runtime}/${name}/`).length + 21 <= 107;
  const socketFolder = host.uid === undefined ? undefined : `${usable ? runtime : "/tmp"}/${name}`;
  return {
    ...(socketFolder === undefined
      ? {}
      : { socketFolder, socket: `${socketFolder}/${hash(server, 16)}.sock` }),
    ...(host.home === undefined || !host.home.startsWith("/") ? {} : {
      cache: `${host.home.replace(/\/$/, "")}/.cache/toolroute/servers/${
        hash([identity.scope, ...server], 32)
      }`,
    }),
  };
}

/**
 * {@linkcode serverPaths} for this process's user: its id (`Deno.uid()`), `HOME` and
 * `XDG_RUNTIME_DIR`; without the id, no socket path (see {@linkcode socketPathOf}); without
 * `HOME`, no cache.
 *
 * Requires `allow-sys` for `uid`, `allow-env` for `HOME` and `XDG_RUNTIME_DIR`.
 *
 * @tags allow-sys, allow-env
 * @param identity The config, user and server.
 */
export function hostServerPaths(identity: ServerIdentity): ServerPaths {
  let uid: number | undefined;
  try {
    uid = Deno.uid() ?? undefined;
  } catch {
    // Not readable: no fixed socket path.
  }
  // Not readable: no package cache of its own, and the socket folder is under /tmp.
  const home = hostEnv("HOME");
  const runtimeDir = hostEnv(RUNTIME_DIR_VARIABLE) || undefined;
  return serverPaths(identity, { uid, home, runtimeDir });
}

/**
 * The proxy socket of {@linkcode hostServerPaths}, for a server that has a network.
 *
 * Throws a `TypeError` naming the flag when the user's id may not be read.
 *
 * @param paths The server's paths.
 * @param serverId The server's id, for the message.
 * @returns The socket and its folder.
 */
export function socketPathOf(
  paths: ServerPaths,
  serverId: string,
): { socket: string; socketFolder: string } {
  if (paths.socket === undefined || paths.socketFolder === undefined) {
    throw new TypeError(
      `Cannot name the egress proxy socket of the sandboxed server "${serverId}": it is named ` +
        `after the user's id, which this process may not read; grant --allow-sys=uid`,
    );
  }
  return { socket: paths.socket, socketFolder: paths.socketFolder };
}

// NUL never occurs in a path or an id: the parts cannot run into one another.
function hash(parts: readonly string[], chars: number): string {
  return createHash("sha256").update(parts.join("\0")).digest("hex").slice(0, chars);
}

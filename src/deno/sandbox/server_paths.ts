import { createHash } from "node:crypto";

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
   * that user, under `/tmp` (a Unix socket's path has at most 107 bytes).
   */
  readonly socketFolder: string;
  /** The server's egress proxy socket, in `socketFolder`. */
  readonly socket: string;
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
 * @returns The paths.
 */
export function serverPaths(
  identity: ServerIdentity,
  host: { readonly uid: number; readonly home?: string },
): ServerPaths {
  const socketFolder = `/tmp/toolroute-${hash([identity.scope, String(host.uid)], 16)}`;
  const server = [identity.userId ?? "", identity.serverId];
  return {
    socketFolder,
    socket: `${socketFolder}/${hash(server, 16)}.sock`,
    ...(host.home === undefined || !host.home.startsWith("/") ? {} : {
      cache: `${host.home.replace(/\/$/, "")}/.cache/toolroute/servers/${
        hash([identity.scope, ...server], 32)
      }`,
    }),
  };
}

/**
 * {@linkcode serverPaths} for this process's user: its id (`Deno.uid()`) and `HOME`.
 *
 * Throws a `TypeError` naming the flag when the user's id may not be read.
 *
 * Requires `allow-sys` for `uid`, `allow-env` for `HOME`.
 *
 * @tags allow-sys, allow-env
 * @param identity The config, user and server.
 * @returns The paths.
 */
export function hostServerPaths(identity: ServerIdentity): ServerPaths {
  let uid: number;
  try {
    uid = Deno.uid() ?? 0;
  } catch (error) {
    throw new TypeError(
      `Cannot name the proxy socket of the sandboxed server "${identity.serverId}": it is ` +
        `named after the user's id, which this process may not read (${
          error instanceof Error ? error.message : String(error)
        }); grant --allow-sys=uid`,
    );
  }
  let home: string | undefined;
  try {
    home = Deno.env.get("HOME");
  } catch {
    // Not readable: no package cache of its own.
  }
  return serverPaths(identity, { uid, ...(home === undefined ? {} : { home }) });
}

// NUL never occurs in a path or an id: the parts cannot run into one another.
function hash(parts: readonly string[], chars: number): string {
  return createHash("sha256").update(parts.join("\0")).digest("hex").slice(0, chars);
}

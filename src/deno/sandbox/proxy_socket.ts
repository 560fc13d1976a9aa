import { dirname } from "@std/path";

// Sockets this process listens on, and when each is let go: a reconnecting server waits for its
// previous proxy instead of taking it for another process's.
const held = new Map<string, Promise<void>>();

/**
 * Listens on a proxy socket at a fixed path (see `serverPaths`), or without one in a new private
 * temporary folder. Its folder is made 0700; a
 * folder there already is used only when it is a real folder (not a link), owned by this
 * process's user and 0700, in a parent that only its owner (or root) may rename entries in:
 * otherwise another local user could have made it first, to swap the socket or to keep the
 * server from starting. Such a folder is never written into or followed: the socket goes into a
 * new private temporary folder instead (`Deno.makeTempDir`, removed again by `cleanUp`). A
 * socket file left by a process that ended is replaced; one another process still listens on is
 * never removed: that throws, naming the likely cause.
 *
 * Requires `allow-read` and `allow-write` for the folder (and the temporary folder when it is
 * taken), `allow-net` for `unix:<socket>` and `allow-sys` for `uid`.
 *
 * @tags allow-read, allow-write, allow-net, allow-sys
 * @param socket The socket's path; none: `proxy.sock` in a new temporary folder.
 * @returns The listener, the path it listens at (`socket`, or one in a new temporary folder) and
 *   a function to call once it is closed, which removes the socket (and that folder).
 */
export async function listenAtSocket(
  socket?: string,
): Promise<{ listener: Deno.UnixListener; socket: string; cleanUp: () => Promise<void> }> {
  const problem = socket === undefined ? undefined : await ownFolder(dirname(socket));
  if (socket === undefined || problem !== undefined) {
    let directory: string;
    try {
      directory = await Deno.makeTempDir({ prefix: "toolroute_net_" });
    } catch (error) {
      if (socket === undefined) throw error;
      throw new Error(
        `the folder of its egress proxy socket, ${dirname(socket)}, ${problem}: another user ` +
          `may have made it. A private temporary folder could not be made instead (${
            error instanceof Error ? error.message : String(error)
          }): remove that folder (or find out who made it), or grant write access to the ` +
          `temporary folder, and start again`,
        { cause: error },
      );
    }
    const path = `${directory}/proxy.sock`;
    const listener = Deno.listen({ transport: "unix", path });
    const cleanUp = () => Deno.remove(directory, { recursive: true }).catch(() => {});
    return { listener, socket: path, cleanUp };
  }
  const previous = held.get(socket);
  if (previous !== undefined) {
    // This process's previous proxy for the server ends with its sandbox.
    await Promise.race([previous, new Promise((resolve) => setTimeout(resolve, 5_000))]);
  }
  let listener: Deno.UnixListener;
  try {
    listener = Deno.listen({ transport: "unix", path: socket });
  } catch (error) {
    if (!(error instanceof Deno.errors.AddrInUse)) throw error;
    if (await answers(socket)) {
      throw new Error(
        `its egress proxy socket ${socket} is in use: another toolroute process serving the ` +
          `same config (as the same user) runs this server. Stop that process, or serve a copy ` +
          `of the config from another path`,
      );
    }
    // Nobody listens: a crashed process's socket file.
    await Deno.remove(socket);
    listener = Deno.listen({ transport: "unix", path: socket });
  }
  const { promise: released, resolve: release } = Promise.withResolvers<void>();
  held.set(socket, released);
  return {
    listener,
    socket,
    // Only its own socket goes: the folder is shared by the config's other servers.
    cleanUp: () =>
      Deno.remove(socket).catch(() => {}).finally(() => {
        if (held.get(socket) === released) held.delete(socket);
        release();
      }),
  };
}

/** Makes or checks the socket folder; returns why it is not provably ours, if it is not. */
async function ownFolder(folder: string): Promise<string | undefined> {
  const uid = Deno.uid();
  // Another user who may rename entries in the parent could swap the folder after the check.
  // The parent is checked where this process may read it (`toolroute flags` grants the folder
  // only; /tmp is sticky, and XDG_RUNTIME_DIR the user's own, wherever they are set up right).
  const parent = await Deno.lstat(dirname(folder)).catch((error) => {
    if (error instanceof Deno.errors.NotCapable) return undefined;
    throw error;
  });
  const parentMode = parent?.mode ?? 0;
  if (
    parent !== undefined &&
    (!parent.isDirectory || (parent.uid !== uid && parent.uid !== 0) ||
      ((parentMode & 0o022) !== 0 && (parentMode & 0o1000) === 0))
  ) {
    return `is in ${dirname(folder)}, which another user may change`;
  }
  try {
    await Deno.mkdir(folder, { mode: 0o700 });
    // The umask may have taken the owner's bits away too; nobody else can change a new folder.
    await Deno.chmod(folder, 0o700);
    return undefined;
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
  }
  const info = await Deno.lstat(folder);
  return info.isSymlink
    ? "is a symbolic link"
    : !info.isDirectory
    ? "is not a folder"
    : info.uid !== uid
    ? `belongs to user ${info.uid}, not to this process's user ${uid}`
    : ((info.mode ?? 0) & 0o777) !== 0o700
    ? `has mode ${((info.mode ?? 0) & 0o777).toString(8)}, not 700`
    : undefined;
}

async function answers(socket: string): Promise<boolean> {
  try {
    const conn = await Deno.connect({ transport: "unix", path: socket });
    conn.close();
    return true;
  } catch {
    return false;
  }
}

import { dirname } from "@std/path";

// Sockets this process listens on, and when each is let go: a reconnecting server waits for its
// previous proxy instead of taking it for another process's.
const held = new Map<string, Promise<void>>();

/**
 * Listens on a proxy socket at a fixed path (see `serverPaths`). Its folder is made 0700; a
 * folder there already is used only when it is a real folder (not a link), owned by this
 * process's user and 0700: otherwise another user could have made it to swap the socket. A
 * socket file left by a process that ended is replaced; one another process still listens on is
 * never removed: that throws, naming the likely cause.
 *
 * Requires `allow-read` and `allow-write` for the folder, `allow-net` for `unix:<socket>` and
 * `allow-sys` for `uid`.
 *
 * @tags allow-read, allow-write, allow-net, allow-sys
 * @param socket The socket's path.
 * @returns The listener, and a function to call once it is closed.
 */
export async function listenAtSocket(
  socket: string,
): Promise<{ listener: Deno.UnixListener; release: () => void }> {
  await ownFolder(dirname(socket));
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
  let release!: () => void;
  const released = new Promise<void>((resolve) => release = resolve);
  held.set(socket, released);
  return {
    listener,
    release() {
      if (held.get(socket) === released) held.delete(socket);
      release();
    },
  };
}

async function ownFolder(folder: string): Promise<void> {
  try {
    await Deno.mkdir(folder, { mode: 0o700 });
    // The umask may have taken the owner's bits away too; nobody else can change a new folder.
    await Deno.chmod(folder, 0o700);
    return;
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
  }
  const info = await Deno.lstat(folder);
  const uid = Deno.uid();
  const problem = info.isSymlink
    ? "is a symbolic link"
    : !info.isDirectory
    ? "is not a folder"
    : info.uid !== uid
    ? `belongs to user ${info.uid}, not to this process's user ${uid}`
    : ((info.mode ?? 0) & 0o777) !== 0o700
    ? `has mode ${((info.mode ?? 0) & 0o777).toString(8)}, not 700`
    : undefined;
  if (problem !== undefined) {
    throw new Error(
      `the folder of its egress proxy socket, ${folder}, ${problem}: another user may have ` +
        `made it to take over the socket. Remove it (or find out who made it) and start again`,
    );
  }
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

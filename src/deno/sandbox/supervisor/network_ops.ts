import type { SupervisorContext, SupervisorOps } from "./supervisor_context.ts";

/**
 * The supervisor's network operation: `net` (`port`, `path`) bridges a loopback port inside the
 * sandbox to the host's proxy socket (the sandbox's only way out), and `ping`. Self-contained:
 * its source text runs inside the sandbox.
 *
 * @param context The supervisor's shared context.
 */
export function networkOps(context: SupervisorContext): SupervisorOps {
  const { send } = context;
  // The proxy's side decides when a connection ends (its limit, its idle timeout, the
  // upstream's end): then the command's side is ended too, even while the command still holds
  // it open without sending, so the sandbox's descriptors stay bounded by the proxy's. Ended
  // with a FIN after the last byte, and what the command still sends read and dropped for a
  // moment: a close with unread bytes would reset the connection, and the command would lose
  // the proxy's last answer (its 503).
  const writeAll = async (conn: Deno.Conn, bytes: Uint8Array) => {
    for (let at = 0; at < bytes.length;) at += await conn.write(bytes.subarray(at));
  };
  const bridge = async (conn: Deno.Conn, socket: string) => {
    let out: Deno.Conn | undefined;
    let up: Promise<void> = Promise.resolve();
    try {
      out = await Deno.connect({ transport: "unix", path: socket });
      const proxy = out;
      up = (async () => {
        const buffer = new Uint8Array(64 * 1024);
        let open = true;
        for (;;) {
          const count = await conn.read(buffer).catch(() => null);
          if (count === null) break;
          if (open) await writeAll(proxy, buffer.subarray(0, count)).catch(() => open = false);
        }
        await proxy.closeWrite().catch(() => {});
      })();
      const buffer = new Uint8Array(64 * 1024);
      for (;;) {
        const count = await proxy.read(buffer);
        if (count === null) break;
        await writeAll(conn, buffer.subarray(0, count));
      }
    } catch {
      // The proxy refused or went away: the connection ends.
    }
    await conn.closeWrite().catch(() => {});
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([up, new Promise((resolve) => timer = setTimeout(resolve, 1000))]);
    clearTimeout(timer);
    for (const end of [conn, out]) {
      try {
        end?.close();
      } catch {
        // Closed already.
      }
    }
  };
  return {
    ping: (request) => send({ id: request.id, ok: {} }),
    net: (request) => {
      const listener = Deno.listen({ hostname: "127.0.0.1", port: Number(request.port) });
      const socket = String(request.path);
      context.hold?.((async () => {
        for await (const conn of listener) void bridge(conn, socket);
      })());
      return send({ id: request.id, ok: {} });
    },
  };
}

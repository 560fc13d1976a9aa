import type { SupervisorContext, SupervisorOps } from "./supervisor_context.ts";

/**
 * The supervisor's network operation: `net` (`port`, `path`) bridges a loopback port inside the
 * sandbox to the host's proxy socket (the sandbox's only way out), and `ping`. Self-contained:
 * its source text runs inside the sandbox.
 *
 * @param context The supervisor's shared context.
 * @returns The operations.
 */
export function networkOps(context: SupervisorContext): SupervisorOps {
  const { send } = context;
  const bridge = async (conn: Deno.Conn, socket: string) => {
    try {
      const out = await Deno.connect({ transport: "unix", path: socket });
      await Promise.allSettled([
        conn.readable.pipeTo(out.writable),
        out.readable.pipeTo(conn.writable),
      ]);
    } catch {
      // The proxy refused or went away: the connection ends.
    }
    try {
      conn.close();
    } catch {
      // Closed by the pipe already.
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

import { HttpConnection } from "./_http_connection.ts";
import { quietly } from "../sandbox/quietly.ts";

/** The bounds of {@linkcode serveBounded}: what one client can hold of the server. */
export interface HttpBounds {
  /**
   * Most connections open at once. At the limit, the oldest connection that has not sent its
   * whole head yet (else one whose answer is written whole) is closed for the new one; with none
   * such, the new one is answered `503`.
   */
  readonly maxConnections: number;
  /**
   * A request's head (request line and headers) must arrive whole within this many milliseconds
   * of the connection's accept; a body must make progress within it between reads.
   */
  readonly headTimeoutMs: number;
  /**
   * Most connections open at once with the same `Authorization` header (one user's bearer
   * token), counted once the head is read; more are answered `429`. A request without the
   * header, or with a wrong token, is answered at once and holds its connection no longer.
   */
  readonly maxConnectionsPerUser: number;
}

/** The defaults of `serve --http`: many MCP clients, no half-sent request held for long. */
export const DEFAULT_HTTP_BOUNDS: HttpBounds = Object.freeze({
  maxConnections: 256,
  headTimeoutMs: 10_000,
  maxConnectionsPerUser: 64,
});

/** Where and how {@linkcode serveBounded} listens. */
export interface BoundedServeOptions extends HttpBounds {
  readonly hostname: string;
  /** The port (0: any free one). */
  readonly port: number;
  /** Stops the server and ends every connection. */
  readonly signal: AbortSignal;
  /** Called once listening, with the address. */
  readonly onListen?: (addr: Deno.NetAddr) => void;
}

/** A running {@linkcode serveBounded}. */
export interface BoundedServer {
  readonly addr: Deno.NetAddr;
  /** Connections open now. */
  readonly open: () => number;
  /** Settles once the signal stopped it and every connection ended. */
  readonly finished: Promise<void>;
}

const encoder = new TextEncoder();

/**
 * Serves HTTP/1.1 on TCP with bounds `Deno.serve` does not offer (it has neither a head timeout
 * nor a connection limit: a client sending a request head one byte at a time holds its
 * connection for ever, and thousands of them the server's descriptors). Each connection carries
 * one request (`Connection: close` on every answer), so every head is read here under the
 * timeout; at `maxConnections` the oldest connection still reading its head (else one whose answer
 * is written whole) is closed to make room, and only when every connection carries a request
 * still being served is a new one answered `503`; past
 * `maxConnectionsPerUser` with the same `Authorization` header `429`; a head that is not
 * whole within `headTimeoutMs` of the accept, or a body that stalls that long, ends the
 * connection. The request's `signal` aborts when the client goes away or the server stops.
 * Bodies are `Content-Length` or chunked, of at most 16 MiB (`413`, or the chunked body cut); a
 * request with both is refused (`400`), as is any other transfer coding (`501`), a head over
 * 64 KiB (`431`) and anything but HTTP/1.x.
 *
 * @tags allow-net
 */
export function serveBounded(
  options: BoundedServeOptions,
  handler: (request: Request) => Response | Promise<Response>,
): BoundedServer {
  const listener = Deno.listen({ hostname: options.hostname, port: options.port });
  const addr = listener.addr as Deno.NetAddr;
  const connections = new Set<HttpConnection>();
  const perUser = new Map<string, number>();
  const stop = () => {
    quietly(() => listener.close());
    for (const connection of connections) connection.end();
  };
  options.signal.addEventListener("abort", stop, { once: true });
  options.onListen?.(addr);
  const finished = (async () => {
    const running = new Set<Promise<void>>();
    for (;;) {
      let conn: Deno.Conn;
      try {
        conn = await listener.accept();
      } catch (error) {
        if (options.signal.aborted || error instanceof Deno.errors.BadResource) break;
        // Out of descriptors (the process's, or the system's) or a connection reset before its
        // accept: the server goes on, a moment later.
        await new Promise((resolve) => setTimeout(resolve, 50));
        continue;
      }
      // Ended connections leave the set only once their serve() settles: they are not counted.
      const live = [...connections].filter((connection) => !connection.ended());
      if (live.length >= options.maxConnections) {
        // A slot still waiting for its head, or past its whole answer, is given up for the new
        // connection (the oldest first): otherwise a client without a token holds every slot
        // with half-sent heads (renewed each timeout) or with answered requests whose announced
        // body never comes, and no user's whole request gets in.
        const waiting = live.find((connection) => connection.waitingForHead()) ??
          live.find((connection) => connection.answered());
        if (waiting === undefined) {
          refuseBusy(conn, options.maxConnections);
          continue;
        }
        waiting.end();
      }
      const connection = new HttpConnection(conn, options, { local: addr, perUser });
      connections.add(connection);
      const done = connection.serve(handler).finally(() => {
        connections.delete(connection);
        running.delete(done);
      });
      running.add(done);
    }
    await Promise.allSettled([...running]);
    options.signal.removeEventListener("abort", stop);
  })();
  if (options.signal.aborted) stop();
  return { addr, open: () => connections.size, finished };
}

// Past the limit: answered and closed without reading, so it holds a descriptor only for the
// write of a short answer into an empty socket buffer.
function refuseBusy(conn: Deno.Conn, max: number): void {
  const body =
    `toolroute: the server already has ${max} connections open (its limit); retry shortly\n`;
  conn.write(encoder.encode(
    `HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain\r\ncontent-length: ${body.length}\r\nretry-after: 1\r\nconnection: close\r\n\r\n${body}`,
  )).catch(() => {}).finally(() => quietly(() => conn.close()));
}

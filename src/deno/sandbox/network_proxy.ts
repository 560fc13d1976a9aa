import { concat } from "@std/bytes";
import { listenAtSocket } from "./proxy_socket.ts";
import { quietly } from "./quietly.ts";

/** Bounds of one sandbox's network proxy: what the host holds for one sandbox session. */
export interface ProxyLimits {
  /** Most connections from the sandbox open at once; more get `503 Service Unavailable`. */
  readonly maxConnections: number;
  /**
   * A connection through which nothing passed for this long is closed on both sides; a request
   * head must arrive whole within it.
   */
  readonly idleTimeoutMs: number;
}

/** The defaults: room for a package manager's parallel downloads, not for a flood. */
export const DEFAULT_PROXY_LIMITS: ProxyLimits = Object.freeze({
  maxConnections: 64,
  idleTimeoutMs: 60_000,
});

/** Refusals and connections of a {@linkcode NetworkProxy}, for tests and logs. */
export interface ProxyCounts {
  /** Connections let through. */
  allowed: number;
  /** Requests refused (a name not on the list, a direct IP, a malformed request). */
  refused: number;
  /** Connections refused with `503` because the session had `maxConnections` open. */
  overLimit: number;
  /** Connections closed because nothing passed for `idleTimeoutMs` (or the head was late). */
  idleClosed: number;
}

// One connection from the sandbox: its client side, its upstream once connected, and when
// something last passed (or, while its head is read, when it was accepted).
interface Pair {
  client: Deno.Conn;
  upstream?: Deno.Conn;
  last: number;
  closed: boolean;
}

// The most bytes of a request head the proxy reads before deciding.
const MAX_HEAD = 16 * 1024;

/**
 * Whether a host name is on an allowlist: exact names (case-insensitive) and `*.example.com`
 * (any name below it, not the name itself). An IP address is never allowed: only names.
 *
 * @param host The host name from the request.
 * @returns Whether it may be reached.
 */
export function hostAllowed(host: string, allow: readonly string[]): boolean {
  const name = host.toLowerCase().replace(/\.$/, "");
  if (isIpLiteral(name)) return false;
  return allow.some((entry) => {
    const rule = entry.toLowerCase();
    return rule.startsWith("*.") ? name.endsWith(rule.slice(1)) : name === rule;
  });
}

/**
 * Whether the proxy may talk to the address an allowed name resolved to: not the machine itself
 * (loopback, unspecified) nor a link-local address (a cloud's metadata service), unless the
 * allowed name is `localhost` or below it. An allowed name's DNS is its owner's (a server's own
 * API host, say): it could answer `127.0.0.1` and reach the host's services from the sandbox.
 *
 * @param address The address connected to.
 * @param host The allowed name.
 * @returns Whether to go on.
 */
export function addressReachable(address: string, host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, "");
  if (name === "localhost" || name.endsWith(".localhost")) return true;
  // An IPv4-mapped IPv6 address, dotted or in hex (`::ffff:7f00:1`), is its IPv4 address.
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(address.toLowerCase());
  const ip = hex === null
    ? address.toLowerCase().replace(/^::ffff:(?=\d+\.)/, "")
    : [parseInt(hex[1], 16) >> 8, parseInt(hex[1], 16) & 255, parseInt(hex[2], 16) >> 8, 0]
      .join(".");
  return !(/^(127|0)\./.test(ip) || /^169\.254\./.test(ip) || ip === "::1" || ip === "::" ||
    /^fe[89ab][0-9a-f]:/.test(ip));
}

function isIpLiteral(name: string): boolean {
  return /^\[.*\]$/.test(name) || name.includes(":") || /^[0-9.]+$/.test(name) ||
    /^0x[0-9a-f]+$/.test(name);
}

/**
 * An HTTP proxy outside the sandbox, listening on a Unix socket that is the sandbox's only way
 * out (the session bridges `127.0.0.1:3128` inside to it). It serves `CONNECT host:port` (HTTPS
 * and any TCP) and plain `http://` requests, only to names on the allowlist; any other name and
 * any IP address get `403 Forbidden`, and so does an allowed name that resolves to this machine
 * (loopback) or a link-local address (see {@linkcode addressReachable}), unless it is
 * `localhost`. Names are resolved by the host, never inside the sandbox.
 *
 * Every resource it takes on the host is bounded per session ({@linkcode ProxyLimits}): at most
 * `maxConnections` connections from the sandbox at once (each holds two of the host's file
 * descriptors: its socket and its upstream), more are answered `503` and closed at once; a
 * connection idle for `idleTimeoutMs`, or whose request head has not arrived whole within it, is
 * closed on both sides.
 *
 * Its socket is `proxy.sock` in a new temporary folder, or a fixed path given to `start` (see
 * `listenAtSocket`: what `toolroute flags` can grant, since Deno grants a Unix socket only by
 * its exact path).
 *
 * Requires `allow-read` and `allow-write` for the socket's folder, `allow-net` for the allowed
 * names (and `unix:<socket>`), and, for a fixed path, `allow-sys` for `uid`.
 *
 * @tags allow-read, allow-write, allow-net, allow-sys
 */
export class NetworkProxy {
  #listener: Deno.UnixListener;
  #allow: readonly string[];
  #limits: ProxyLimits;
  #pairs = new Set<Pair>();
  #sweep?: ReturnType<typeof setInterval>;
  #closed = false;
  #cleanUp: () => Promise<void>;
  /** The proxy's Unix socket. */
  readonly socket: string;
  /** What it let through and refused. */
  readonly counts: ProxyCounts = { allowed: 0, refused: 0, overLimit: 0, idleClosed: 0 };

  private constructor(
    listener: Deno.UnixListener,
    options: {
      socket: string;
      cleanUp: () => Promise<void>;
      allow: readonly string[];
      limits: ProxyLimits;
    },
  ) {
    this.#listener = listener;
    this.socket = options.socket;
    this.#cleanUp = options.cleanUp;
    this.#allow = options.allow;
    this.#limits = options.limits;
    void this.#serve();
  }

  /**
   * Starts a proxy for an allowlist.
   *
   * @param allow Host names (and `*.` wildcards) that may be reached.
   * @param limits Its bounds (default {@linkcode DEFAULT_PROXY_LIMITS}).
   * @param options `socket`: a fixed path for its socket (default: in a new temporary folder).
   * @returns The running proxy.
   */
  static async start(
    allow: readonly string[],
    limits: ProxyLimits = DEFAULT_PROXY_LIMITS,
    options: { socket?: string } = {},
  ): Promise<NetworkProxy> {
    const { listener, socket, cleanUp } = await listenAtSocket(options.socket);
    return new NetworkProxy(listener, { socket, cleanUp, allow, limits });
  }

  /** How many connections from the sandbox are open now. */
  get open(): number {
    return this.#pairs.size;
  }

  /** Stops listening, ends every connection and removes the socket. */
  async close(): Promise<void> {
    this.#closed = true;
    quietly(() => this.#listener.close());
    for (const pair of this.#pairs) closePair(pair);
    this.#stopSweep();
    await this.#cleanUp();
  }

  async #serve(): Promise<void> {
    for (;;) {
      let conn: Deno.Conn;
      try {
        conn = await this.#listener.accept();
      } catch (error) {
        if (error instanceof Deno.errors.BadResource || this.#closed) return;
        // Out of descriptors: the proxy goes on a moment later instead of ending for good.
        await new Promise((resolve) => setTimeout(resolve, 50));
        continue;
      }
      if (this.#pairs.size >= this.#limits.maxConnections) {
        this.counts.overLimit++;
        overLimit(conn, this.#limits.maxConnections);
      } else void this.#handle(conn);
    }
  }

  async #handle(client: Deno.Conn): Promise<void> {
    const pair: Pair = { client, last: performance.now(), closed: false };
    this.#pairs.add(pair);
    this.#startSweep();
    try {
      const head = await readHead(client);
      const request = head === undefined ? undefined : parseRequest(head.text);
      if (request === undefined || !hostAllowed(request.host, this.#allow)) {
        if (pair.closed) return;
        this.counts.refused++;
        await refuse(client, request?.host);
        return;
      }
      // The connection attempt counts as the head's time: a name that never answers is given
      // up with the rest of the head's deadline.
      const rest = pair.last + this.#limits.idleTimeoutMs - performance.now();
      const upstream = await Deno.connect({
        hostname: request.host,
        port: request.port,
        signal: AbortSignal.timeout(Math.max(1, rest)),
      });
      pair.upstream = upstream;
      if (pair.closed) return;
      if (!addressReachable((upstream.remoteAddr as Deno.NetAddr).hostname, request.host)) {
        // Nothing was sent: the name answered with the host itself or a link-local address.
        this.counts.refused++;
        await refuse(client, request.host, "resolves to this machine or a link-local address");
        return;
      }
      pair.last = performance.now();
      this.counts.allowed++;
      if (request.connect) {
        await client.write(new TextEncoder().encode("HTTP/1.1 200 Connection Established\r\n\r\n"));
        if (head!.rest.length > 0) await writeAll(upstream, head!.rest);
      } else {
        // Plain HTTP: the request line in origin form, one request per connection.
        const text = head!.text.replace(/^(\S+) \S+/, `$1 ${request.path}`)
          .replace(/\r\nproxy-connection:[^\r]*/i, "")
          .replace(/\r\n\r\n$/, "\r\nConnection: close\r\n\r\n");
        await writeAll(upstream, concat([new TextEncoder().encode(text), head!.rest]));
      }
      const seen = () => pair.last = performance.now();
      await Promise.allSettled([pipe(client, upstream, seen), pipe(upstream, client, seen)]);
    } catch {
      // A failed connection ends both sides.
    } finally {
      closePair(pair);
      this.#pairs.delete(pair);
      if (this.#pairs.size === 0) this.#stopSweep();
    }
  }

  // One timer per proxy while connections are open: closes those idle past the limit (a pair
  // still reading its head has `last` at its accept, so its whole head must come in time).
  #startSweep(): void {
    if (this.#sweep !== undefined) return;
    const every = Math.max(20, Math.min(1_000, this.#limits.idleTimeoutMs / 4));
    const sweep = setInterval(() => {
      const now = performance.now();
      for (const pair of this.#pairs) {
        if (!pair.closed && now - pair.last >= this.#limits.idleTimeoutMs) {
          this.counts.idleClosed++;
          closePair(pair);
        }
      }
    }, every);
    Deno.unrefTimer(sweep);
    this.#sweep = sweep;
  }

  #stopSweep(): void {
    clearInterval(this.#sweep);
    this.#sweep = undefined;
  }
}

interface ProxyRequest {
  connect: boolean;
  host: string;
  port: number;
  path: string;
}

function parseRequest(head: string): ProxyRequest | undefined {
  const line = head.slice(0, head.indexOf("\r\n"));
  const connect = /^CONNECT (\[[^\]]+\]|[^\s:]+):(\d{1,5}) HTTP\/1\.[01]$/.exec(line);
  if (connect !== null) {
    const port = Number(connect[2]);
    return port > 0 && port < 65536
      ? { connect: true, host: connect[1], port, path: "" }
      : undefined;
  }
  const plain = /^[A-Z]+ (http:\/\/[^\s]+) HTTP\/1\.[01]$/.exec(line);
  if (plain === null) return undefined;
  try {
    const url = new URL(plain[1]);
    return {
      connect: false,
      host: url.hostname,
      port: Number(url.port || 80),
      path: `${url.pathname}${url.search}`,
    };
  } catch {
    return undefined;
  }
}

async function readHead(conn: Deno.Conn): Promise<{ text: string; rest: Uint8Array } | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const buffer = new Uint8Array(4096);
  while (size < MAX_HEAD) {
    const count = await conn.read(buffer);
    if (count === null) return undefined;
    chunks.push(buffer.slice(0, count));
    size += count;
    const all = concat(chunks);
    const text = new TextDecoder("latin1").decode(all);
    const end = text.indexOf("\r\n\r\n");
    if (end >= 0) return { text: text.slice(0, end + 4), rest: all.subarray(end + 4) };
  }
  return undefined;
}

async function refuse(conn: Deno.Conn, host: string | undefined, why?: string): Promise<void> {
  const body = host === undefined
    ? "toolroute: the sandbox's proxy takes CONNECT host:port or http:// requests only\n"
    : why !== undefined
    ? `toolroute: "${host}" ${why}: only a name "localhost" reaches those; list it to allow\n`
    : `toolroute: "${host}" is not on the sandbox's network allowlist (names only, no IP addresses)\n`;
  await writeAll(conn, answer("403 Forbidden", body)).catch(() => {});
}

// A plain-text answer that closes the connection.
function answer(status: string, body: string): Uint8Array {
  return new TextEncoder().encode(
    `HTTP/1.1 ${status}\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\n` +
      `Connection: close\r\n\r\n${body}`,
  );
}

async function pipe(from: Deno.Conn, to: Deno.Conn, seen: () => void): Promise<void> {
  const buffer = new Uint8Array(64 * 1024);
  try {
    for (;;) {
      const count = await from.read(buffer);
      if (count === null) break;
      seen();
      await writeAll(to, buffer.subarray(0, count));
      seen();
    }
  } finally {
    await to.closeWrite().catch(() => {}); // Closed already.
  }
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  for (let at = 0; at < bytes.length;) at += await conn.write(bytes.subarray(at));
}

// Answers a connection past the session's limit and closes it at once: the host holds its file
// descriptor only for the write of a short answer into an empty socket buffer.
function overLimit(conn: Deno.Conn, max: number): void {
  const body =
    `toolroute: the sandbox already has ${max} connections open through its proxy (the session's limit); close some and retry\n`;
  conn.write(answer("503 Service Unavailable", body)).catch(() => {})
    .finally(() => quietly(() => conn.close()));
}

function closePair(pair: Pair): void {
  pair.closed = true;
  quietly(() => pair.client.close());
  quietly(() => pair.upstream?.close());
}

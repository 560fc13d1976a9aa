/** The bounds of {@linkcode serveBounded}: what one client can hold of the server. */
export interface HttpBounds {
  /** Most connections open at once; more are answered `503` and closed at once. */
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
  /** The address to listen on. */
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
  /** The address it listens on. */
  readonly addr: Deno.NetAddr;
  /** Connections open now. */
  readonly open: () => number;
  /** Settles once the signal stopped it and every connection ended. */
  readonly finished: Promise<void>;
}

// The largest request head read; a longer one is answered 431.
const MAX_HEAD = 64 * 1024;
// The largest request body passed on (the handler buffers it whole); a longer one is answered
// 413 (Content-Length) or cut with an error (chunked).
const MAX_BODY = 16 * 1024 * 1024;
const encoder = new TextEncoder();

/**
 * Serves HTTP/1.1 on TCP with bounds `Deno.serve` does not offer (it has neither a head timeout
 * nor a connection limit: a client sending a request head one byte at a time holds its
 * connection for ever, and thousands of them the server's descriptors). Each connection carries
 * one request (`Connection: close` on every answer), so every head is read here under the
 * timeout; past `maxConnections` a connection is answered `503` and closed, past
 * `maxConnectionsPerUser` with the same `Authorization` header `429`; a head that is not
 * whole within `headTimeoutMs` of the accept, or a body that stalls that long, ends the
 * connection. The request's `signal` aborts when the client goes away or the server stops.
 * Bodies are `Content-Length` or chunked, of at most 16 MiB (`413`, or the chunked body cut); a
 * request with both is refused (`400`), as is any other transfer coding (`501`), a head over
 * 64 KiB (`431`) and anything but HTTP/1.x.
 *
 * @tags allow-net
 * @param options Address, bounds, stop signal.
 * @param handler Answers a request.
 * @returns The running server.
 */
export function serveBounded(
  options: BoundedServeOptions,
  handler: (request: Request) => Response | Promise<Response>,
): BoundedServer {
  const listener = Deno.listen({ hostname: options.hostname, port: options.port });
  const addr = listener.addr as Deno.NetAddr;
  const connections = new Set<Connection>();
  const perUser = new Map<string, number>();
  const stop = () => {
    try {
      listener.close();
    } catch {
      // Closed already.
    }
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
      if (connections.size >= options.maxConnections) {
        refuseBusy(conn, options.maxConnections);
        continue;
      }
      const connection = new Connection(conn, options, { local: addr, perUser });
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

class Connection {
  #conn: Deno.Conn;
  #bounds: HttpBounds;
  #local: Deno.NetAddr;
  #perUser: Map<string, number>;
  #user?: string;
  #timer?: ReturnType<typeof setTimeout>;
  #ended = false;
  #watching = false;
  #abort = new AbortController();

  constructor(
    conn: Deno.Conn,
    bounds: HttpBounds,
    shared: { local: Deno.NetAddr; perUser: Map<string, number> },
  ) {
    this.#conn = conn;
    this.#bounds = bounds;
    this.#local = shared.local;
    this.#perUser = shared.perUser;
  }

  /** Ends the connection at once (its deadline, the server's stop). */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#user !== undefined) {
      const left = (this.#perUser.get(this.#user) ?? 1) - 1;
      if (left > 0) this.#perUser.set(this.#user, left);
      else this.#perUser.delete(this.#user);
    }
    clearTimeout(this.#timer);
    this.#abort.abort(new Error("the connection ended"));
    try {
      this.#conn.close();
    } catch {
      // Closed already.
    }
  }

  // Each read of a body and each write of the answer must finish within the timeout: a client
  // that stalls its body or stops reading the answer does not hold its connection either.
  async #bounded<T>(op: Promise<T>): Promise<T> {
    const timer = setTimeout(() => this.end(), this.#bounds.headTimeoutMs);
    try {
      return await op;
    } finally {
      clearTimeout(timer);
    }
  }

  async serve(handler: (request: Request) => Response | Promise<Response>): Promise<void> {
    try {
      // The whole head within the timeout of the accept, however slowly it trickles in.
      this.#timer = setTimeout(() => this.end(), this.#bounds.headTimeoutMs);
      const head = await this.#readHead();
      clearTimeout(this.#timer);
      if (head === undefined) return;
      const parsed = parseHead(head.bytes);
      if (typeof parsed === "number") return await this.#refuse(parsed);
      // One user's connections (by bearer token) cannot take every slot from the others. Keyed
      // by the token as the MCP handler reads it, so that spellings of the header do not count
      // apart.
      const authorization = parsed.headers.get("authorization");
      const user = authorization === null
        ? null
        : authorization.match(/^Bearer\s+(\S+)\s*$/i)?.[1] ?? authorization;
      if (user !== null) {
        const open = this.#perUser.get(user) ?? 0;
        if (open >= this.#bounds.maxConnectionsPerUser) return await this.#refuse(429);
        this.#perUser.set(user, open + 1);
        this.#user = user;
      }
      const body = this.#body(parsed, head.rest);
      if (typeof body === "number") return await this.#refuse(body);
      const host = parsed.headers.get("host") ??
        `${
          this.#local.hostname.includes(":") ? `[${this.#local.hostname}]` : this.#local.hostname
        }:${this.#local.port}`;
      // A host and port only: no userinfo, path or query to shift what the URL means.
      if (!/^[A-Za-z0-9._~-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(host)) {
        return await this.#refuse(400);
      }
      let url: URL;
      try {
        url = new URL(`http://${host}${parsed.target}`);
      } catch {
        return await this.#refuse(400);
      }
      if (parsed.headers.get("expect")?.toLowerCase() === "100-continue" && body !== null) {
        await this.#write(encoder.encode("HTTP/1.1 100 Continue\r\n\r\n"));
      }
      const request = new Request(url, {
        method: parsed.method,
        headers: parsed.headers,
        body,
        signal: this.#abort.signal,
        // @ts-ignore: a stream body needs duplex "half" (not in Deno's RequestInit type).
        duplex: "half",
      });
      // Without a body to read, a client's end is seen by reading on: the request aborts.
      if (body === null) void this.#watchEnd();
      let response: Response;
      try {
        response = await handler(request);
      } catch {
        response = new Response("Internal Server Error", { status: 500 });
      }
      await this.#respond(response, parsed.method);
      await this.#linger();
    } catch {
      // The client went away, or the deadline ended the connection.
    } finally {
      this.end();
    }
  }

  // Reads what the client still sends (a body the handler did not read) for a moment before
  // the close: a close with unread bytes resets the connection, and the client could lose the
  // answer.
  async #linger(): Promise<void> {
    // The answer is whole: the client sees its end, and closes its side.
    await this.#conn.closeWrite().catch(() => {});
    // Once the request was read whole, #watchEnd reads (and drops) already.
    if (this.#watching) return;
    const chunk = new Uint8Array(16 * 1024);
    let left = 1024 * 1024;
    const timer = setTimeout(() => this.end(), Math.min(1000, this.#bounds.headTimeoutMs));
    try {
      while (left > 0 && !this.#ended) {
        const count = await this.#conn.read(chunk);
        if (count === null) break;
        left -= count;
      }
    } catch {
      // Closed.
    } finally {
      clearTimeout(timer);
    }
  }

  async #readHead(): Promise<{ bytes: Uint8Array; rest: Uint8Array } | undefined> {
    // Grown by doubling: a head sent a byte per packet costs linear time, not quadratic.
    let buffer = new Uint8Array(8192);
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        const grown = new Uint8Array(buffer.length * 2);
        grown.set(buffer);
        buffer = grown;
      }
      const count = await this.#conn.read(buffer.subarray(length));
      if (count === null) return undefined;
      const end = indexOfHeadEnd(buffer.subarray(0, length + count), Math.max(0, length - 3));
      length += count;
      if (end >= 0 && end <= MAX_HEAD) {
        return { bytes: buffer.subarray(0, end), rest: buffer.subarray(end + 4, length) };
      }
      if (end > MAX_HEAD || length > MAX_HEAD) {
        await this.#answerError(431);
        return undefined;
      }
    }
  }

  #body(head: ParsedHead, rest: Uint8Array): ReadableStream<Uint8Array> | null | number {
    const coding = head.headers.get("transfer-encoding");
    const length = head.headers.get("content-length");
    if (coding !== null && length !== null) return 400;
    if (coding !== null) {
      if (coding.trim().toLowerCase() !== "chunked") return 501;
      return this.#stream(capped(chunkedReader(rest, () => this.#read())));
    }
    if (length === null) return null;
    if (!/^\d{1,15}$/.test(length.trim())) return 400;
    const total = Number(length.trim());
    if (total === 0) return null;
    if (total > MAX_BODY) return 413;
    return this.#stream(lengthReader(rest, total, () => this.#read()));
  }

  #stream(next: () => Promise<Uint8Array | null>): ReadableStream<Uint8Array> {
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        try {
          const bytes = await next();
          if (bytes === null) {
            controller.close();
            void this.#watchEnd();
          } else controller.enqueue(bytes);
        } catch (error) {
          controller.error(error);
        }
      },
    });
  }

  async #read(): Promise<Uint8Array | null> {
    const chunk = new Uint8Array(16 * 1024);
    const count = await this.#bounded(this.#conn.read(chunk));
    if (count === null) return null;
    return chunk.subarray(0, count);
  }

  // After the request the client sends nothing that is used (one request per connection): its
  // end aborts the request; anything else it sends is dropped.
  async #watchEnd(): Promise<void> {
    this.#watching = true;
    const chunk = new Uint8Array(4096);
    try {
      while (!this.#ended && (await this.#conn.read(chunk)) !== null) { /* dropped */ }
    } catch {
      // Closed.
    }
    this.#abort.abort(new Error("the client went away"));
  }

  async #respond(response: Response, method: string): Promise<void> {
    const status = response.status;
    const noBody = method === "HEAD" || status === 204 || status === 304 || status < 200;
    const lines = [`HTTP/1.1 ${status} ${response.statusText || REASONS[status] || "Unknown"}`];
    for (const [name, value] of response.headers) {
      if (HOP_BY_HOP.has(name)) continue;
      lines.push(`${name}: ${value}`);
    }
    lines.push("connection: close");
    if (noBody || response.body === null) {
      if (!noBody && !response.headers.has("content-length")) lines.push("content-length: 0");
      await this.#write(encoder.encode(`${lines.join("\r\n")}\r\n\r\n`));
      await response.body?.cancel().catch(() => {});
      return;
    }
    // One request per connection: without a length, the body ends with the connection.
    await this.#write(encoder.encode(`${lines.join("\r\n")}\r\n\r\n`));
    const reader = response.body.getReader();
    const cancel = () => void reader.cancel().catch(() => {});
    this.#abort.signal.addEventListener("abort", cancel, { once: true });
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        await this.#write(value);
      }
    } finally {
      this.#abort.signal.removeEventListener("abort", cancel);
    }
    await this.#conn.closeWrite().catch(() => {});
  }

  async #refuse(status: number): Promise<void> {
    await this.#answerError(status);
    await this.#linger();
  }

  async #answerError(status: number): Promise<void> {
    const body = `${REASONS[status]}\n`;
    await this.#write(encoder.encode(
      `HTTP/1.1 ${status} ${
        REASONS[status]
      }\r\ncontent-type: text/plain\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
    )).catch(() => {});
  }

  async #write(bytes: Uint8Array): Promise<void> {
    for (let at = 0; at < bytes.length;) {
      at += await this.#bounded(this.#conn.write(bytes.subarray(at)));
    }
  }
}

// Headers of the connection, not of the answer: this server sets its own.
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "upgrade",
  "proxy-connection",
]);

const REASONS: Record<number, string> = {
  200: "OK",
  201: "Created",
  202: "Accepted",
  204: "No Content",
  302: "Found",
  304: "Not Modified",
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  406: "Not Acceptable",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  421: "Misdirected Request",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
  501: "Not Implemented",
  503: "Service Unavailable",
  505: "HTTP Version Not Supported",
};

// Past the limit: answered and closed without reading, so it holds a descriptor only for the
// write of a short answer into an empty socket buffer.
function refuseBusy(conn: Deno.Conn, max: number): void {
  const body =
    `toolroute: the server already has ${max} connections open (its limit); retry shortly\n`;
  conn.write(encoder.encode(
    `HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain\r\ncontent-length: ${body.length}\r\nretry-after: 1\r\nconnection: close\r\n\r\n${body}`,
  )).catch(() => {}).finally(() => {
    try {
      conn.close();
    } catch {
      // Closed already.
    }
  });
}

interface ParsedHead {
  method: string;
  target: string;
  headers: Headers;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

// The request line and headers (RFC 9112), strictly: anything odd is a 400, never a guess.
function parseHead(bytes: Uint8Array): ParsedHead | number {
  const text = new TextDecoder("latin1").decode(bytes);
  const lines = text.split("\r\n");
  const line = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) (\/[^\s]*|\*) HTTP\/1\.([01])$/.exec(lines[0]);
  if (line === null) return /^\S+ \S+ HTTP\/\d/.test(lines[0]) ? 505 : 400;
  const headers = new Headers();
  for (const header of lines.slice(1)) {
    const colon = header.indexOf(":");
    if (colon <= 0) return 400;
    const name = header.slice(0, colon);
    const value = header.slice(colon + 1).trim();
    // No obsolete line folding, no control characters (Headers refuses some, not all).
    // deno-lint-ignore no-control-regex
    if (!TOKEN.test(name) || /[\x00-\x08\x0a-\x1f\x7f]/.test(value)) return 400;
    try {
      headers.append(name, value);
    } catch {
      return 400;
    }
  }
  if (line[3] === "1" && !headers.has("host")) return 400;
  return { method: line[1], target: line[2], headers };
}

function indexOfHeadEnd(bytes: Uint8Array, from: number): number {
  for (let i = from; i + 3 < bytes.length; i++) {
    if (bytes[i] === 13 && bytes[i + 1] === 10 && bytes[i + 2] === 13 && bytes[i + 3] === 10) {
      return i;
    }
  }
  return -1;
}

function capped(next: () => Promise<Uint8Array | null>): () => Promise<Uint8Array | null> {
  let total = 0;
  return async () => {
    const bytes = await next();
    total += bytes?.length ?? 0;
    if (total > MAX_BODY) throw new Error(`the body is over ${MAX_BODY} bytes`);
    return bytes;
  };
}

function lengthReader(
  first: Uint8Array,
  total: number,
  read: () => Promise<Uint8Array | null>,
): () => Promise<Uint8Array | null> {
  let left = total;
  let pending: Uint8Array | undefined = first.length > 0 ? first : undefined;
  return async () => {
    if (left === 0) return null;
    const bytes = pending ?? await read();
    pending = undefined;
    if (bytes === null) throw new Error("the body ended early");
    const take = bytes.subarray(0, Math.min(left, bytes.length));
    left -= take.length;
    return take;
  };
}

// Decodes a chunked body (sizes in hex, extensions ignored, trailers read and dropped), handing
// on each part of a chunk as it arrives: a chunk sent a byte per packet costs linear time.
function chunkedReader(
  first: Uint8Array,
  read: () => Promise<Uint8Array | null>,
): () => Promise<Uint8Array | null> {
  let buffered = first;
  let left = 0; // bytes of the current chunk still to come
  let crlf = false; // the CRLF after a chunk is due
  let done = false;
  const more = async () => {
    const bytes = await read();
    if (bytes === null) throw new Error("the body ended early");
    return bytes;
  };
  const line = async (): Promise<string> => {
    for (;;) {
      for (let i = 0; i + 1 < buffered.length; i++) {
        if (buffered[i] === 13 && buffered[i + 1] === 10) {
          const text = new TextDecoder("latin1").decode(buffered.subarray(0, i));
          buffered = buffered.subarray(i + 2);
          return text;
        }
      }
      if (buffered.length > 4096) throw new Error("a chunk line is too long");
      const bytes = await more();
      const next = new Uint8Array(buffered.length + bytes.length);
      next.set(buffered);
      next.set(bytes, buffered.length);
      buffered = next;
    }
  };
  return async () => {
    for (;;) {
      if (done) return null;
      if (left > 0) {
        if (buffered.length === 0) buffered = await more();
        const take = buffered.slice(0, Math.min(left, buffered.length));
        buffered = buffered.subarray(take.length);
        left -= take.length;
        crlf = left === 0;
        return take;
      }
      if (crlf) {
        if ((await line()) !== "") throw new Error("a malformed chunk");
        crlf = false;
        continue;
      }
      const size = /^([0-9a-fA-F]{1,12})(;.*)?$/.exec(await line());
      if (size === null) throw new Error("a malformed chunk size");
      left = parseInt(size[1], 16);
      if (left === 0) {
        while ((await line()) !== "") { /* trailers: dropped */ }
        done = true;
      }
    }
  };
}

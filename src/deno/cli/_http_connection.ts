import { capped, chunkedReader, lengthReader, MAX_BODY } from "./_body_readers.ts";
import { indexOfNeedle } from "@std/bytes";
import { type ParsedHead, parseHead } from "./_parse_head.ts";
import { quietly } from "../sandbox/quietly.ts";

/** The bounds a connection keeps (those of `HttpBounds` it uses). */
interface ConnectionBounds {
  readonly headTimeoutMs: number;
  readonly maxConnectionsPerUser: number;
}

// The largest request head read; a longer one is answered 431.
const MAX_HEAD = 64 * 1024;
const encoder = new TextEncoder();
const HEAD_END = encoder.encode("\r\n\r\n");

/**
 * One connection of `serveBounded`: reads its one request's head under the timeout, passes the
 * request on, writes the answer and closes (`Connection: close`).
 */
export class HttpConnection {
  #conn: Deno.Conn;
  #bounds: ConnectionBounds;
  #local: Deno.NetAddr;
  #perUser: Map<string, number>;
  #user?: string;
  #timer?: ReturnType<typeof setTimeout>;
  #ended = false;
  #headRead = false;
  #answered = false;
  #watching = false;
  #abort = new AbortController();

  constructor(
    conn: Deno.Conn,
    bounds: ConnectionBounds,
    shared: { local: Deno.NetAddr; perUser: Map<string, number> },
  ) {
    this.#conn = conn;
    this.#bounds = bounds;
    this.#local = shared.local;
    this.#perUser = shared.perUser;
  }

  /** Whether the connection is open and its request head not yet whole. */
  waitingForHead(): boolean {
    return !this.#ended && !this.#headRead;
  }

  /** Whether the connection is open only to let the client's unread bytes drain. */
  answered(): boolean {
    return !this.#ended && this.#answered;
  }

  ended(): boolean {
    return this.#ended;
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
    quietly(() => this.#conn.close());
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
      this.#headRead = true;
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
    this.#answered = true;
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
      // The blank line that ends the head, searched from the last bytes before these.
      const read = buffer.subarray(0, length + count);
      const end = indexOfNeedle(read, HEAD_END, Math.max(0, length - 3));
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
    return this.#stream(lengthReader(rest, { total, read: () => this.#read() }));
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

import { BATCH_MESSAGE } from "../../core/mcp/serve/json_rpc_batch.ts";
import { JsonLineReader, type OversizedLine } from "./_json_line_reader.ts";
import { type FileSink, LineWriter } from "./_line_writer.ts";

/** Deno's own stdin (or any file) as a source: reads into a buffer, `null` at the end. */
export interface FileSource {
  /** Reads into `buffer`; resolves to the number of bytes, or `null` at the end. */
  read(buffer: Uint8Array): Promise<number | null>;
  /** Closes it, ending a read still waiting (so the process can exit). */
  close?(): void;
}

/** Bytes read from a file at a time. */
const READ_BYTES = 64 * 1024;

/** A JSON-RPC message as MCP sends it. */
type JsonRpcMessage = Record<string, unknown>;

/** Most bytes of one incoming line; a longer message is an error, not unbounded memory. */
const MAX_LINE_BYTES = 16 * 1024 * 1024;

/**
 * The server side of MCP's stdio transport on Deno's own streams: one JSON-RPC message per line
 * on stdin and stdout. Nothing else may write to stdout; logs go to stderr. Lines are split on
 * bytes by the same reader as the client side's (`DenoStdioClientTransport`), so a message is
 * decoded once, whole, and a line over 16 MiB is skipped without being held.
 *
 * It implements the SDK's `Transport` structurally, so `ToolSetServer#connect` takes it.
 */
export class DenoStdioServerTransport {
  /** Set by the SDK: receives each message. */
  onmessage?: (message: JsonRpcMessage) => void;
  /** Set by the SDK: called once when the stream ends or the transport closes. */
  onclose?: () => void;
  /** Set by the SDK: receives parse and stream errors. */
  onerror?: (error: Error) => void;
  #input: ReadableStream<Uint8Array> | FileSource;
  #output: LineWriter;
  #reader?: ReadableStreamDefaultReader<Uint8Array>;
  #closed = false;
  #encoder = new TextEncoder();

  /**
   * Creates the transport.
   *
   * @param input The stream or file to read (default: `Deno.stdin`, read directly: a
   *   `ReadableStream` over it adds its own work to every message).
   * @param output The stream or file to write (default: `Deno.stdout`, written to directly:
   *   see `LineWriter`).
   */
  constructor(
    input: ReadableStream<Uint8Array> | FileSource = Deno.stdin,
    output: WritableStream<Uint8Array> | FileSink = Deno.stdout,
  ) {
    this.#input = input;
    this.#output = new LineWriter(output);
  }

  /** Starts reading; resolves at once. */
  start(): Promise<void> {
    if (this.#input instanceof ReadableStream) this.#reader = this.#input.getReader();
    void this.#read();
    return Promise.resolve();
  }

  /** Writes one message as a line. */
  async send(message: JsonRpcMessage): Promise<void> {
    if (this.#closed) throw new Error("Cannot send: the stdio transport is closed");
    // Only answers are written at once. The SDK client handles a notification one microtask
    // after reading it but an answer at once, so a progress notification written just before
    // its answer, arriving in the same read, came after the answer and was dropped.
    const answer = "id" in message && ("result" in message || "error" in message);
    await this.#output.write(this.#encoder.encode(JSON.stringify(message) + "\n"), {
      sync: answer,
    });
  }

  /** Stops reading (closing a file source such as stdin) and releases the streams. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#reader !== undefined) await this.#reader.cancel().catch(() => {});
    else closeQuietly(this.#input as FileSource);
    this.#output.release();
    this.onclose?.();
  }

  async #read(): Promise<void> {
    const lines = new JsonLineReader(
      MAX_LINE_BYTES,
      (line) => this.#dispatch(line),
      (line) => this.#oversized(line),
    );
    const next = this.#chunks();
    try {
      while (!this.#closed) {
        const chunk = await next();
        if (chunk === null) break;
        lines.push(chunk);
        await afterThisTurn();
      }
      lines.end();
    } catch (error) {
      if (!this.#closed) this.onerror?.(error as Error);
    }
    await this.close();
  }

  /** Reads the next chunk (valid until the next read: the line reader copies what it keeps). */
  #chunks(): () => Promise<Uint8Array | null> {
    const reader = this.#reader;
    if (reader !== undefined) {
      return async () => {
        const { done, value } = await reader.read();
        return done ? null : value;
      };
    }
    const file = this.#input as FileSource;
    const buffer = new Uint8Array(READ_BYTES);
    return async () => {
      const read = await file.read(buffer);
      return read === null ? null : buffer.subarray(0, read);
    };
  }

  /** A message too large to hold is reported and skipped; the transport stays open. */
  #oversized(line: OversizedLine): void {
    this.onerror?.(
      new Error(`Dropped an incoming message of ${line.bytes} bytes, over ${MAX_LINE_BYTES}`),
    );
  }

  #dispatch(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.onerror?.(new Error("Received a line that is not JSON; ignored it"));
      return;
    }
    if (Array.isArray(message)) {
      // A batch (removed from MCP in 2025-06-18): answered with one error, none of it runs.
      void this.send({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: BATCH_MESSAGE },
      } as unknown as JsonRpcMessage).catch(() => {});
      return;
    }
    if (message !== null && typeof message === "object") {
      this.onmessage?.(message as JsonRpcMessage);
    } else this.onerror?.(new Error("Received JSON that is not a JSON-RPC message; ignored it"));
  }
}

/**
 * Resolves once the messages just dispatched have run as far as they can without waiting (to
 * their first I/O, or to their answer). Starting a read of stdin costs tens of microseconds on
 * Deno (a thread of its pool wakes to wait on the pipe); started at once, that ran before every
 * call and delayed its answer. An immediate, not a 0 ms timeout: those wait a millisecond or two.
 */
function afterThisTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Closes a file source, ending its waiting read; a source already closed is fine. */
function closeQuietly(source: FileSource): void {
  try {
    source.close?.();
  } catch {
    // Already closed (stdin at its end): nothing waits on it.
  }
}

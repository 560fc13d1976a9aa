/** Deno's own stdout (or any file) as a sink: synchronous and asynchronous writes. */
export interface FileSink {
  /** Writes some of `bytes`, blocking; returns how many. */
  writeSync(bytes: Uint8Array): number;
  /** Writes some of `bytes`; resolves to how many. */
  write(bytes: Uint8Array): Promise<number>;
}

/** Most bytes of a line written synchronously: a pipe's buffer on Linux. */
const SYNC_BYTES = 64 * 1024;

/**
 * Writes whole lines, in order, to a stream or to a file such as stdout.
 *
 * To a file, a line of at most 64 KiB is written synchronously when no larger line is still
 * being written: one system call of about a microsecond, where an asynchronous write (or a
 * `WritableStream`, built on one) costs a thread hop of tens of microseconds per message. Node
 * writes to pipes synchronously on Linux too; like Node, a reader that stops reading holds the
 * writer up once the pipe is full. Larger lines, and lines the caller wants written
 * asynchronously, are queued, and lines after them wait their turn.
 */
export class LineWriter {
  readonly #file?: FileSink;
  readonly #stream?: WritableStreamDefaultWriter<Uint8Array>;
  /** The asynchronous writes still running, in order; `undefined` when none. */
  #queue?: Promise<void>;

  /**
   * Creates the writer.
   *
   * @param output A `WritableStream` (its lock is held until `release`) or a file.
   */
  constructor(output: WritableStream<Uint8Array> | FileSink) {
    if (output instanceof WritableStream) this.#stream = output.getWriter();
    else this.#file = output;
  }

  /**
   * Writes one line (the bytes include the newline).
   *
   * @param options `sync: false` queues the line even when it could be written at once.
   */
  write(line: Uint8Array, options: { sync?: boolean } = {}): Promise<void> {
    if (this.#stream !== undefined) return this.#stream.write(line);
    const file = this.#file!;
    if (options.sync !== false && this.#queue === undefined && line.length <= SYNC_BYTES) {
      try {
        for (let written = 0; written < line.length;) {
          written += file.writeSync(line.subarray(written));
        }
        return Promise.resolve();
      } catch (error) {
        return Promise.reject(error);
      }
    }
    const run = (this.#queue ?? Promise.resolve()).then(async () => {
      for (let written = 0; written < line.length;) {
        written += await file.write(line.subarray(written));
      }
    });
    const settled = run.then(() => {}, () => {});
    this.#queue = settled;
    void settled.then(() => {
      if (this.#queue === settled) this.#queue = undefined;
    });
    return run;
  }

  /** Releases the stream's lock (a file needs nothing). */
  release(): void {
    this.#stream?.releaseLock();
  }
}

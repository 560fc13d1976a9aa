import type { AuditRecord, AuditSink } from "../../core/audit_sink.ts";

/** Options of {@linkcode FileAuditSink.open}. */
export interface FileAuditSinkOptions {
  /**
   * Most records waiting to be written. When they are this many, the next call waits for room
   * (`waitForRoom`) before it runs, instead of a record being dropped; a call under way still
   * writes its record (so the queue holds at most this many plus the calls under way).
   * Default: 10000.
   */
  maxQueued?: number;
  /**
   * How long a call waits for room in a full queue, in milliseconds; then it fails closed
   * (`audit_unavailable`: it does not run, and its record is still written). Default: 10000.
   */
  maxWaitMs?: number;
  /** Told when a write fails or a record comes after `close`; must not throw. */
  onError?: (error: Error) => void;
  /**
   * How long records may wait to be written together, in milliseconds: a crash loses at most
   * this much of the trail, and calls never pay a disk write each. `0` writes at once. Default: 20.
   */
  batchMs?: number;
}

const encoder = new TextEncoder();
const OPTION_RANGES = [
  ["batchMs", 0, 60_000],
  ["maxWaitMs", 1, 600_000],
  ["maxQueued", 1, Infinity],
] as const;

/**
 * An {@linkcode AuditSink} that appends one JSON line per decision to a file (created `0600`).
 * Records are queued and written every `batchMs` (20 ms) in batches of whole lines by one
 * writer, so a call never waits for the disk; a crash loses at most the records of the last
 * `batchMs`, and a crash mid-write can cut only the last line: every earlier line stays
 * parseable (a cut line is closed with a newline when the file is opened again). No record is
 * dropped: when `maxQueued` records are waiting, the next call waits for room before it runs,
 * and one that waits past `maxWaitMs` does not run (`audit_unavailable`).
 *
 * Requires `allow-write` and `allow-read` permission for the file (reading checks that the path is
 * not a symbolic link, and repairs a cut last line).
 *
 * @example Audit every call of a router
 * ```ts
 * import { assertEquals } from "@std/assert";
 * import { defineTool, ToolRouter } from "@toolroute/toolroute";
 * import { FileAuditSink } from "@toolroute/toolroute/deno";
 * import { z } from "zod";
 *
 * const path = await Deno.makeTempFile({ suffix: ".jsonl" });
 * await using audit = await FileAuditSink.open(path);
 * const echo = defineTool({ name: "echo", description: "Echo", input: z.object({}), run: () => "hi" });
 * const tools = await new ToolRouter({ functions: [echo], audit }).expose({ functions: ["echo"] });
 * await tools.invoke("echo", "{}");
 * await audit.flush();
 * const [line] = (await Deno.readTextFile(path)).trim().split("\n");
 * assertEquals(JSON.parse(line).outcome, "ok");
 * ```
 *
 * @tags allow-write, allow-read
 */
export class FileAuditSink implements AuditSink, AsyncDisposable {
  #file: Deno.FsFile;
  /** Lines, or records still to build (`writeLater`): built and serialized when written. */
  #queue: (string | (() => AuditRecord))[] = [];
  #writing?: Promise<void>;
  #maxQueued: number;
  #onError?: (error: Error) => void;
  #batchMs: number;
  #timer?: ReturnType<typeof setTimeout>;
  /** Calls waiting for room, first come first served. */
  #waiters: Waiter[] = [];
  #maxWaitMs: number;
  #lateReported = false;
  #closing = false;
  #closed = false;

  private constructor(file: Deno.FsFile, options: FileAuditSinkOptions) {
    this.#file = file;
    this.#maxQueued = options.maxQueued ?? 10_000;
    this.#maxWaitMs = options.maxWaitMs ?? 10_000;
    this.#onError = options.onError;
    this.#batchMs = options.batchMs ?? 20;
  }

  /**
   * Opens (or creates) the file for appending. Throws when it cannot be opened, and a
   * `TypeError` when the path is a symbolic link.
   *
   * @param path The file.
   * @param options The queue limit and the error listener.
   * @returns The sink.
   */
  static async open(path: string, options: FileAuditSinkOptions = {}): Promise<FileAuditSink> {
    for (const [name, min, max] of OPTION_RANGES) {
      const value = options[name];
      if (value !== undefined && !(value >= min && value <= max)) {
        const range = max === Infinity ? `at least ${min}` : `${min} to ${max}`;
        throw new RangeError(
          `Cannot open the audit file: "${name}" must be ${range}, received ${value}`,
        );
      }
    }
    // A link would send the trail wherever it points, chosen by whoever can replace it: refused.
    // The file is opened once and written through that descriptor, so a link swapped in later
    // is never followed; one swapped in while opening is caught by comparing the two.
    if ((await lstatOrUndefined(path))?.isSymlink) throw symlinkError(path);
    const file = await Deno.open(path, { append: true, create: true, mode: 0o600 });
    try {
      const [opened, named] = [await file.stat(), await lstatOrUndefined(path)];
      if (
        named === undefined || named.isSymlink || named.ino !== opened.ino ||
        named.dev !== opened.dev
      ) {
        throw symlinkError(path);
      }
      if (await endsCut(path, file)) await writeAll(file, encoder.encode("\n"));
    } catch (error) {
      file.close();
      throw error;
    }
    return new FileAuditSink(file, options);
  }

  /** Calls waiting now for room in the full queue. */
  get waiting(): number {
    return this.#waiters.length;
  }

  /**
   * Waits for room for one more record: nothing to wait for when the queue has room (returns
   * nothing), else a promise that resolves when records have left the queue, or rejects after
   * `maxWaitMs`, when `signal` aborts, or when the sink closes. The router calls it before every
   * call and decision it records; calls that wait get room first come, first served.
   *
   * @param signal The call's signal.
   * @returns Nothing, or the wait.
   */
  waitForRoom(signal?: AbortSignal): void | Promise<void> {
    if (this.#closed || this.#closing) throw new Error("the audit file is closed");
    if (this.#waiters.length === 0 && this.#queue.length < this.#maxQueued) return;
    if (signal?.aborted) return Promise.reject(signal.reason);
    // Full: write what is queued now instead of after the batch delay, and wait for room.
    this.#start();
    const { promise, resolve, reject } = Promise.withResolvers<void>();
    const settle = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    };
    const waiter: Waiter = {
      resolve: () => (settle(), resolve()),
      reject: (error) => (settle(), reject(error)),
    };
    // Given up before room came: out of the line.
    const leave = (error: unknown) => {
      this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
      waiter.reject(error);
    };
    const onAbort = () => leave(signal!.reason);
    const full =
      `the audit queue stayed full (${this.#maxQueued} records) for ${this.#maxWaitMs} ms`;
    const timer = setTimeout(() => leave(new Error(full)), this.#maxWaitMs);
    signal?.addEventListener("abort", onAbort, { once: true });
    this.#waiters.push(waiter);
    return promise;
  }

  /**
   * Queues one record; the write happens in the background. A record is queued even past
   * `maxQueued` (never dropped): the bound holds calls back before they run, not records.
   *
   * @param record The record.
   */
  write(record: AuditRecord): void {
    if (this.#accepts()) this.#enqueue(JSON.stringify(record) + "\n");
  }

  /**
   * Queues a record to build when the batch is written, so a call does not pay for the record's
   * JSON (the router uses this for calls whose arguments are text).
   *
   * @param build Returns the record.
   */
  writeLater(build: () => AuditRecord): void {
    if (this.#accepts()) this.#enqueue(build);
  }

  #accepts(): boolean {
    if (this.#closed) {
      if (!this.#lateReported) {
        this.#lateReported = true;
        this.#report(new Error("A record came after the audit file was closed; it is not written"));
      }
      return false;
    }
    return true;
  }

  /** Hands freed room to waiting calls, oldest first, one record each. */
  #wake(): void {
    let room = this.#maxQueued - this.#queue.length;
    while (this.#waiters.length > 0 && room-- > 0) this.#waiters.shift()!.resolve();
  }

  #enqueue(entry: string | (() => AuditRecord)): void {
    this.#queue.push(entry);
    // Calls are waiting for room: write now rather than after the batch delay.
    if (this.#waiters.length > 0) return this.#start();
    if (this.#writing !== undefined || this.#timer !== undefined) return;
    if (this.#batchMs === 0) this.#writing = this.#drain();
    else this.#timer = setTimeout(() => this.#start(), this.#batchMs);
  }

  /** Writes every queued record now; resolves when they are written. */
  async flush(): Promise<void> {
    this.#start();
    while (this.#writing !== undefined) await this.#writing;
  }

  /** Writes what is queued and closes the file; later records are ignored. */
  async close(): Promise<void> {
    if (this.#closed || this.#closing) return;
    // Calls waiting for room would run after their record can no longer be written: they fail.
    this.#closing = true;
    for (const waiter of this.#waiters.splice(0)) {
      waiter.reject(new Error("the audit file was closed"));
    }
    await this.flush();
    this.#closed = true;
    this.#file.close();
  }

  /** Same as {@linkcode FileAuditSink#close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #start(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#queue.length > 0) this.#writing ??= this.#drain();
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        let batch = "";
        const entries = this.#queue.splice(0, this.#queue.length);
        // The records leave the queue: their room goes to the calls waiting for it.
        this.#wake();
        for (const entry of entries) {
          if (typeof entry === "string") batch += entry;
          else {
            try {
              batch += JSON.stringify(entry()) + "\n";
            } catch (error) {
              this.#report(error);
            }
          }
        }
        try {
          await writeAll(this.#file, encoder.encode(batch));
        } catch (error) {
          this.#report(error);
        }
      }
    } finally {
      this.#writing = undefined;
    }
  }

  #report(error: unknown): void {
    try {
      this.#onError?.(error instanceof Error ? error : new Error(String(error)));
    } catch {
      // A listener's failure must not stop the trail.
    }
  }
}

/** A call waiting for room in the queue. */
interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

async function writeAll(file: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  for (let done = 0; done < bytes.length;) done += await file.write(bytes.subarray(done));
}

function symlinkError(path: string): TypeError {
  return new TypeError(
    `Cannot open the audit file "${path}": it is a symbolic link (or was replaced while being opened); give the path of the file itself`,
  );
}

async function lstatOrUndefined(path: string): Promise<Deno.FileInfo | undefined> {
  try {
    return await Deno.lstat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    if (error instanceof Deno.errors.NotCapable) {
      throw new TypeError(
        `Cannot open the audit file "${path}": reading its metadata was denied, so it cannot be checked not to be a symbolic link; run Deno with --allow-read for it too`,
      );
    }
    throw error;
  }
}

/** Whether the file is non-empty and does not end with a newline (a line cut by a crash). */
async function endsCut(path: string, file: Deno.FsFile): Promise<boolean> {
  const { size } = await file.stat();
  if (size === 0) return false;
  let reader: Deno.FsFile;
  try {
    reader = await Deno.open(path, { read: true });
  } catch {
    return true; // Cannot look: a blank line is harmless, a glued line is not.
  }
  try {
    await reader.seek(-1, Deno.SeekMode.End);
    const last = new Uint8Array(1);
    await reader.read(last);
    return last[0] !== 0x0a;
  } finally {
    reader.close();
  }
}

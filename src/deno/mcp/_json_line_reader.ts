import { concat } from "@std/bytes";

const NEWLINE = 0x0a;
const KEEP = 256;

/** What the reader keeps of a line longer than its limit. */
export interface OversizedLine {
  /** The first bytes of the line, decoded. */
  head: string;
  /** The last bytes of the line, decoded. */
  tail: string;
  /** The full length in bytes. */
  bytes: number;
}

/**
 * Splits a byte stream into newline-terminated lines, holding at most `maxBytes` of one line:
 * a longer line is skipped and only its head, tail and size are reported.
 */
export class JsonLineReader {
  readonly #maxBytes: number;
  readonly #onLine: (line: string) => void;
  readonly #onOversized: (line: OversizedLine) => void;
  readonly #decoder = new TextDecoder();
  #parts: Uint8Array[] = [];
  #size = 0;
  #oversized?: { head: Uint8Array; tail: Uint8Array; bytes: number };

  constructor(
    maxBytes: number,
    onLine: (line: string) => void,
    onOversized: (line: OversizedLine) => void,
  ) {
    this.#maxBytes = maxBytes;
    this.#onLine = onLine;
    this.#onOversized = onOversized;
  }

  /** Adds a chunk and emits each line it completes. */
  push(chunk: Uint8Array): void {
    let start = 0;
    while (start < chunk.length) {
      const end = chunk.indexOf(NEWLINE, start);
      const piece = chunk.subarray(start, end === -1 ? chunk.length : end);
      this.#append(piece);
      if (end === -1) return;
      this.#emit();
      start = end + 1;
    }
  }

  /** Emits a last line without a newline, if any. */
  end(): void {
    if (this.#size > 0 || this.#oversized) this.#emit();
  }

  #append(piece: Uint8Array): void {
    if (piece.length === 0) return;
    if (this.#oversized) {
      this.#oversized.tail = lastBytes(this.#oversized.tail, piece);
      this.#oversized.bytes += piece.length;
      return;
    }
    if (this.#size + piece.length > this.#maxBytes) {
      const all = concat([...this.#parts, piece]);
      this.#oversized = { head: all.slice(0, KEEP), tail: all.slice(-KEEP), bytes: all.length };
      this.#parts = [];
      this.#size = 0;
      return;
    }
    this.#parts.push(piece.slice());
    this.#size += piece.length;
  }

  #emit(): void {
    const oversized = this.#oversized;
    if (oversized) {
      this.#oversized = undefined;
      this.#onOversized({
        head: this.#decoder.decode(oversized.head),
        tail: this.#decoder.decode(oversized.tail),
        bytes: oversized.bytes,
      });
      return;
    }
    const line = this.#decoder.decode(
      this.#parts.length === 1 ? this.#parts[0] : concat(this.#parts),
    ).replace(/\r$/, "");
    this.#parts = [];
    this.#size = 0;
    if (line.trim() !== "") this.#onLine(line);
  }
}

function lastBytes(previous: Uint8Array, piece: Uint8Array): Uint8Array {
  if (piece.length >= KEEP) return piece.slice(-KEEP);
  const joined = concat([previous, piece]);
  return joined.slice(-KEEP);
}

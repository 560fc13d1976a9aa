/** One entry of a tar stream. */
export interface TarEntry {
  /** The path as archived (a leading `./` removed). */
  readonly name: string;
  /** `"file"` for a regular file; anything else is `"other"` (no content is kept). */
  readonly kind: "file" | "other";
  /** The size recorded in the header. */
  readonly size: number;
  /** The content of a regular file up to `maxBytes`; `undefined` when it was larger. */
  readonly data?: Uint8Array;
}

const BLOCK = 512;
const DECODER = new TextDecoder();

/**
 * Reads a GNU tar stream (as `tar --format=gnu -c` writes it): regular files with their content,
 * long names (`L` entries), and every other entry kind (symbolic links, FIFOs, folders) without
 * content. A file larger than `maxBytes` is passed over without keeping its content.
 *
 * @param stream The tar bytes.
 * @param maxBytes The largest content kept.
 * @returns The entries, in archive order.
 */
export async function* readTar(
  stream: ReadableStream<Uint8Array>,
  maxBytes: number,
): AsyncGenerator<TarEntry> {
  const input = new ByteQueue(stream.getReader());
  let longName: string | undefined;
  try {
    while (true) {
      const header = await input.take(BLOCK);
      if (header === null || header.every((byte) => byte === 0)) return;
      const size = octal(header.subarray(124, 136));
      const type = String.fromCharCode(header[156]);
      const padded = Math.ceil(size / BLOCK) * BLOCK;
      if (type === "L") {
        const data = await input.take(padded);
        if (data === null) return;
        longName = cString(data.subarray(0, size));
        continue;
      }
      const name = (longName ?? cString(header.subarray(0, 100))).replace(/^(\.\/)+/, "");
      longName = undefined;
      const regular = type === "0" || type === "\0" || type === "7";
      if (!regular || size > maxBytes) {
        if (!(await input.skip(padded))) return;
        yield { name, kind: regular ? "file" : "other", size };
        continue;
      }
      const data = await input.take(padded);
      if (data === null) return;
      yield { name, kind: "file", size, data: data.subarray(0, size) };
    }
  } finally {
    await input.cancel();
  }
}

function octal(field: Uint8Array): number {
  // Base-256 (a set high bit) only appears for sizes of 8 GiB and more.
  if ((field[0] & 0x80) !== 0) return Number.MAX_SAFE_INTEGER;
  const text = cString(field).trim();
  return text === "" ? 0 : parseInt(text, 8);
}

function cString(bytes: Uint8Array): string {
  const end = bytes.indexOf(0);
  return DECODER.decode(end < 0 ? bytes : bytes.subarray(0, end));
}

/** Exact-size reads over a byte stream. */
class ByteQueue {
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  #chunks: Uint8Array[] = [];
  #length = 0;

  constructor(reader: ReadableStreamDefaultReader<Uint8Array>) {
    this.#reader = reader;
  }

  /** The next `n` bytes, or `null` when the stream ends first. */
  async take(n: number): Promise<Uint8Array | null> {
    while (this.#length < n) {
      const { value, done } = await this.#reader.read();
      if (done) return null;
      this.#chunks.push(value);
      this.#length += value.length;
    }
    const first = this.#chunks[0];
    let out: Uint8Array;
    if (first.length >= n) {
      out = first.subarray(0, n);
    } else {
      out = new Uint8Array(n);
      let at = 0;
      while (at < n) {
        const chunk = this.#chunks[0];
        const count = Math.min(chunk.length, n - at);
        out.set(chunk.subarray(0, count), at);
        at += count;
        if (count < chunk.length) {
          this.#chunks[0] = chunk.subarray(count);
          break;
        }
        this.#chunks.shift();
      }
      this.#length -= n;
      return out;
    }
    this.#chunks[0] = first.subarray(n);
    if (this.#chunks[0].length === 0) this.#chunks.shift();
    this.#length -= n;
    return out;
  }

  /** Drops the next `n` bytes; `false` when the stream ends first. */
  async skip(n: number): Promise<boolean> {
    let left = n;
    while (left > 0) {
      if (this.#chunks.length === 0) {
        const { value, done } = await this.#reader.read();
        if (done) return false;
        this.#chunks.push(value);
        this.#length += value.length;
      }
      const chunk = this.#chunks[0];
      const count = Math.min(chunk.length, left);
      left -= count;
      this.#length -= count;
      if (count < chunk.length) this.#chunks[0] = chunk.subarray(count);
      else this.#chunks.shift();
    }
    return true;
  }

  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }
}

import { assertEquals } from "@std/assert";
import { readLines } from "../../../../src/deno/builtins/files/read_lines.ts";

async function withFile<T>(
  bytes: Uint8Array,
  run: (file: Deno.FsFile, size: number) => Promise<T>,
): Promise<T> {
  const path = await Deno.makeTempFile();
  try {
    await Deno.writeFile(path, bytes);
    using file = await Deno.open(path);
    return await run(file, bytes.length);
  } finally {
    await Deno.remove(path);
  }
}

const text = (s: string) => new TextEncoder().encode(s);

Deno.test("readLines() keeps memory bounded for a long file without line breaks", async () => {
  const bytes = text("y".repeat(3 * 1024 * 1024));
  const read = await withFile(
    bytes,
    (file, size) => readLines(file, { size, range: { startLine: 1, maxChars: 100 } }),
  );
  assertEquals([read.content.length, read.truncated, read.endLine], [100, true, 1]);
});

Deno.test("readLines() counts lines after the range for small files", async () => {
  const read = await withFile(
    text("a\nb\nc\nd"),
    (file, size) => readLines(file, { size, range: { startLine: 2, endLine: 2, maxChars: 100 } }),
  );
  assertEquals(read, {
    content: "b\n",
    endLine: 2,
    truncated: false,
    binary: false,
    totalLines: 4,
  });
});

Deno.test("readLines() decodes multi-byte characters split across chunks", async () => {
  const line = "é".repeat(40_000) + "\n"; // 80 000 bytes: crosses the 64 KiB chunk boundary
  const read = await withFile(
    text(line),
    (file, size) => readLines(file, { size, range: { startLine: 1, maxChars: 100_000 } }),
  );
  assertEquals(read.content, line);
});

Deno.test("readLines() reports NUL bytes up to the end of the range as binary", async () => {
  const read = await withFile(
    new Uint8Array([0x61, 0x0a, 0x00, 0x0a]),
    (file, size) => readLines(file, { size, range: { startLine: 1, maxChars: 100 } }),
  );
  assertEquals(read.binary, true);
});

Deno.test("readLines() stops when its signal aborts", async () => {
  const controller = new AbortController();
  controller.abort(new Error("stop"));
  let message = "";
  try {
    await withFile(
      text("a\n"),
      (file, size) =>
        readLines(file, { size, range: { startLine: 1, maxChars: 10, signal: controller.signal } }),
    );
  } catch (error) {
    message = (error as Error).message;
  }
  assertEquals(message, "stop");
});

Deno.test("readLines() reads a file to its end when it grew since its size was measured", async () => {
  // The buffer is sized from the measured size: the lines written after it still come back,
  // also multi-byte characters split between the small reads.
  const lines = Array.from({ length: 300 }, (_, i) => `line ${i} é\n`).join("");
  for (const measured of [0, 10, 2000]) {
    const read = await withFile(
      text(lines),
      (file) => readLines(file, { size: measured, range: { startLine: 1, maxChars: 100_000 } }),
    );
    assertEquals(read.content, lines, `measured ${measured}`);
    assertEquals(read.totalLines, 300);
  }
});

Deno.test("readLines() reads with a whole chunk when the size given is not a byte count", async () => {
  for (const size of [Number.NaN, -1, Infinity, 1.5]) {
    let reads = 0;
    let largest = 0;
    const bytes = text("a\nb\n");
    let offset = 0;
    const read = await readLines({
      read(buffer) {
        reads++;
        largest = Math.max(largest, buffer.length);
        if (offset >= bytes.length) return Promise.resolve(null);
        const n = Math.min(buffer.length, bytes.length - offset);
        buffer.set(bytes.subarray(offset, offset + n));
        offset += n;
        return Promise.resolve(n);
      },
    }, { size, range: { startLine: 1, maxChars: 100 } });
    assertEquals(read.content, "a\nb\n", `size ${size}`);
    assertEquals(largest, 64 * 1024, `size ${size}`);
    assertEquals(reads, 2);
  }
});

Deno.test("readLines() reads a file of the measured size in one read, and reads on past a short read before it", async () => {
  const bytes = text("hello\nworld\n".repeat(20));
  const source = (chunk: number) => {
    let offset = 0;
    const calls: number[] = [];
    return {
      calls,
      read(buffer: Uint8Array) {
        const n = Math.min(chunk, buffer.length, bytes.length - offset);
        calls.push(n);
        if (n === 0) return Promise.resolve(null);
        buffer.set(bytes.subarray(offset, offset + n));
        offset += n;
        return Promise.resolve(n);
      },
    };
  };
  const whole = source(Infinity);
  const read = await readLines(whole, {
    size: bytes.length,
    range: { startLine: 1, maxChars: 10_000 },
  });
  assertEquals(read.content, "hello\nworld\n".repeat(20));
  assertEquals(read.totalLines, 40);
  assertEquals(whole.calls, [240]); // no read only to see the end
  // Short reads below the measured size (a pipe-like source) do not end the file.
  const pieces = source(7);
  const again = await readLines(pieces, {
    size: bytes.length,
    range: { startLine: 1, maxChars: 10_000 },
  });
  assertEquals(again.content, read.content);
  assertEquals(pieces.calls.length, Math.ceil(240 / 7));
});

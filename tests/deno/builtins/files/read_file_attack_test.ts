// A file that keeps growing while it is read (a background command of the model's appending to
// it): a file measured small is scanned to its end to count its lines, and that end must come.
import { assert, assertEquals } from "@std/assert";
import type { ByteSource } from "../../../../src/deno/builtins/files/file_access.ts";
import { readLines } from "../../../../src/deno/builtins/files/read_file.ts";

/** A file measured at `size` bytes that grows without end: line after line of "a\n". */
function endless(): ByteSource & { bytes: number; reads: number } {
  const source = {
    bytes: 0,
    reads: 0,
    read(buffer: Uint8Array): Promise<number | null> {
      source.reads++;
      for (let i = 0; i < buffer.length; i++) buffer[i] = i % 2 === 0 ? 97 : 10;
      const n = buffer.length - (buffer.length % 2);
      source.bytes += n;
      return Promise.resolve(n);
    },
  };
  return source;
}

Deno.test("readLines() of a small file that keeps growing while read stops after a bounded scan, without a line count", async () => {
  for (const range of [{ startLine: 1, endLine: 2 }, { startLine: 1 }]) {
    const file = endless();
    const read = await readLines(file, { size: 20, range: { ...range, maxChars: 1000 } });
    assert(file.reads > 1, "the attack ran (the file grew past its measured size)");
    assertEquals(read.content.slice(0, 4), "a\na\n");
    assertEquals(read.totalLines, undefined, "a line count of a file read only in part");
    assert(file.bytes <= 4 * 1024 * 1024 + 2 * 65536, `read ${file.bytes} bytes`);
  }
});

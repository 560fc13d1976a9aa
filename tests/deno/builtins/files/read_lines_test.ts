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
    (file, size) => readLines(file, size, { startLine: 1, maxChars: 100 }),
  );
  assertEquals([read.content.length, read.truncated, read.endLine], [100, true, 1]);
});

Deno.test("readLines() counts lines after the range for small files", async () => {
  const read = await withFile(
    text("a\nb\nc\nd"),
    (file, size) => readLines(file, size, { startLine: 2, endLine: 2, maxChars: 100 }),
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
    (file, size) => readLines(file, size, { startLine: 1, maxChars: 100_000 }),
  );
  assertEquals(read.content, line);
});

Deno.test("readLines() reports NUL bytes up to the end of the range as binary", async () => {
  const read = await withFile(
    new Uint8Array([0x61, 0x0a, 0x00, 0x0a]),
    (file, size) => readLines(file, size, { startLine: 1, maxChars: 100 }),
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
        readLines(file, size, { startLine: 1, maxChars: 10, signal: controller.signal }),
    );
  } catch (error) {
    message = (error as Error).message;
  }
  assertEquals(message, "stop");
});

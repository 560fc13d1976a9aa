import { assertEquals } from "@std/assert";
import { type FileSink, LineWriter } from "../../../src/deno/mcp/_line_writer.ts";

/** A file that takes at most `most` bytes per write, recording how each was written. */
function fakeFile(most: number): FileSink & { bytes: number[]; calls: string[] } {
  const bytes: number[] = [];
  const calls: string[] = [];
  const take = (chunk: Uint8Array, how: string) => {
    const n = Math.min(most, chunk.length);
    bytes.push(...chunk.subarray(0, n));
    calls.push(how);
    return n;
  };
  return {
    bytes,
    calls,
    writeSync: (chunk) => take(chunk, "sync"),
    write: async (chunk) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return take(chunk, "async");
    },
  };
}

const line = (text: string) => new TextEncoder().encode(text + "\n");
const text = (bytes: number[]) => new TextDecoder().decode(new Uint8Array(bytes));

Deno.test("LineWriter writes a small line to a file at once, whole even when writes are partial", async () => {
  const file = fakeFile(3);
  const writer = new LineWriter(file);
  const written = writer.write(line("hello"));
  assertEquals(text(file.bytes), "hello\n"); // before awaiting: written synchronously
  await written;
  assertEquals(new Set(file.calls), new Set(["sync"]));
});

Deno.test("LineWriter keeps the order when a queued line is still being written", async () => {
  const file = fakeFile(1000);
  const writer = new LineWriter(file);
  const big = "x".repeat(70 * 1024); // over 64 KiB: written asynchronously
  const first = writer.write(line(big));
  const second = writer.write(line("after big")); // queued behind it, not written at once
  const third = writer.write(line("asked async"), { sync: false });
  assertEquals(file.bytes.length, 0);
  await Promise.all([first, second, third]);
  assertEquals(text(file.bytes), `${big}\nafter big\nasked async\n`);
  await writer.write(line("now at once"));
  assertEquals(text(file.bytes).endsWith("asked async\nnow at once\n"), true);
  assertEquals(file.calls.at(-1), "sync");
});

Deno.test("LineWriter writes to a stream through its writer", async () => {
  const chunks: string[] = [];
  const stream = new WritableStream<Uint8Array>({
    write: (chunk) => void chunks.push(new TextDecoder().decode(chunk)),
  });
  const writer = new LineWriter(stream);
  await writer.write(line("one"));
  await writer.write(line("two"), { sync: false });
  writer.release();
  assertEquals(chunks, ["one\n", "two\n"]);
  await stream.close();
});

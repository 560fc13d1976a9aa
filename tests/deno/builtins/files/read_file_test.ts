import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { readLines } from "../../../../src/deno/builtins/files/read_file.ts";
import { fileTools, makeFixture, SECRET } from "../_fixture.ts";

Deno.test("read_file returns lines with their numbers and the total", async () => {
  await using f = await makeFixture();
  await Deno.writeTextFile(`${f.workspace}/five.txt`, "1\n2\n3\n4\n5\n");
  await using setup = await fileTools(f.context);
  const all = JSON.parse(await setup.router.invoke("read_file", { path: "five.txt" }));
  assertEquals(all, {
    path: "five.txt",
    content: "1\n2\n3\n4\n5\n",
    startLine: 1,
    endLine: 5,
    totalLines: 5,
    truncated: false,
  });
  const middle = JSON.parse(
    await setup.tools.invoke("read_file", '{"path":"five.txt","startLine":2,"endLine":3}'),
  );
  assertEquals([middle.content, middle.startLine, middle.endLine, middle.totalLines], [
    "2\n3\n",
    2,
    3,
    5,
  ]);
  const ro = JSON.parse(await setup.tools.invoke("read_file", { path: `${f.readOnly}/ro.txt` }));
  assertEquals(ro.content, "read only\n");
});

Deno.test("read_file cuts at maxChars on a line boundary and says where to continue", async () => {
  await using f = await makeFixture();
  await Deno.writeTextFile(`${f.workspace}/lines.txt`, "aaaa\nbbbb\ncccc\n");
  await using setup = await fileTools({ ...f.context, readMaxChars: 12 });
  const first = JSON.parse(await setup.tools.invoke("read_file", { path: "lines.txt" }));
  assertEquals([first.content, first.endLine, first.truncated], ["aaaa\nbbbb\n", 2, true]);
  const next = JSON.parse(
    await setup.tools.invoke("read_file", { path: "lines.txt", startLine: 3 }),
  );
  assertEquals([next.content, next.truncated, next.totalLines], ["cccc\n", false, 3]);
  const asked = JSON.parse(
    await setup.tools.invoke("read_file", { path: "lines.txt", maxChars: 1000 }),
  );
  assertEquals(asked.truncated, true, "maxChars never exceeds readMaxChars");
  await Deno.writeTextFile(`${f.workspace}/long.txt`, "x".repeat(100) + "\n");
  const long = JSON.parse(await setup.tools.invoke("read_file", { path: "long.txt" }));
  assertEquals([long.content, long.truncated, long.endLine], ["x".repeat(12), true, 1]);
});

Deno.test("read_file keeps CRLF and a missing final newline as they are", async () => {
  await using f = await makeFixture();
  await Deno.writeTextFile(`${f.workspace}/crlf.txt`, "a\r\nb");
  await using setup = await fileTools(f.context);
  const read = JSON.parse(await setup.tools.invoke("read_file", { path: "crlf.txt" }));
  assertEquals([read.content, read.totalLines], ["a\r\nb", 2]);
});

Deno.test("read_file reads lines 1-100 of a 1 GB sparse file without reading the rest", async () => {
  await using f = await makeFixture();
  const path = `${f.workspace}/huge.log`;
  await Deno.writeTextFile(
    path,
    Array.from({ length: 200 }, (_, i) => `line ${i + 1}`).join("\n") + "\n",
  );
  await Deno.truncate(path, 1024 ** 3); // the rest is a hole of NUL bytes
  await using setup = await fileTools(f.context);
  const read = JSON.parse(
    await setup.tools.invoke("read_file", { path: "huge.log", startLine: 1, endLine: 100 }),
  );
  // Reaching the NUL bytes would have made it "not a text file": only the head was read.
  assertEquals([read.startLine, read.endLine, read.truncated, read.totalLines], [
    1,
    100,
    false,
    undefined,
  ]);
  assert(read.content.startsWith("line 1\nline 2\n") && read.content.endsWith("line 100\n"));
});

Deno.test("read_file refuses directories, FIFOs, devices and binary files with clear errors", async () => {
  await using f = await makeFixture();
  await Deno.mkdir(`${f.workspace}/dir`);
  await Deno.writeFile(`${f.workspace}/blob.bin`, new Uint8Array([0x41, 0, 0x42, 0x0a]));
  await new Deno.Command("mkfifo", { args: [`${f.workspace}/pipe`] }).output();
  await Deno.symlink("/dev/zero", `${f.workspace}/zero`);
  await using setup = await fileTools({ ...f.context, readOnlyRoots: [f.readOnly, "/dev/zero"] });
  const dir = await setup.tools.call("read_file", { path: "dir" });
  assertEquals(dir.code, "tool_error");
  assertStringIncludes(dir.text, "is a directory");
  const fifo = await setup.tools.call("read_file", { path: "pipe" });
  assertStringIncludes(fifo.text, "FIFO");
  const device = await setup.tools.call("read_file", { path: "zero" });
  assertStringIncludes(device.text, "device");
  const blob = await setup.tools.call("read_file", { path: "blob.bin" });
  assertStringIncludes(blob.text, "not a text file");
});

Deno.test("read_file refuses escapes through the router without leaking outside content", async () => {
  await using f = await makeFixture();
  await Deno.symlink(`${f.outside}/secret.txt`, `${f.workspace}/innocent.txt`);
  await Deno.symlink(f.outside, `${f.workspace}/docs`);
  await using setup = await fileTools(f.context);
  for (
    const path of [
      "../outside/secret.txt",
      `${f.outside}/secret.txt`,
      `${f.sibling}/secret.txt`,
      "innocent.txt",
      "docs/secret.txt",
    ]
  ) {
    const result = await setup.tools.call("read_file", { path });
    assertEquals(result.code, "permission_denied", path);
    assertStringIncludes(result.text, "outside allowed roots");
    assert(!result.text.includes(SECRET), path);
  }
  const symlinked = await setup.tools.call("read_file", { path: "innocent.txt" });
  assert(!symlinked.text.includes(f.outside), "the resolved outside path is never echoed");
});

Deno.test("read_file checks its arguments", async () => {
  await using f = await makeFixture();
  await using setup = await fileTools(f.context);
  const reversed = await setup.tools.call("read_file", {
    path: "hello.txt",
    startLine: 3,
    endLine: 2,
  });
  assertEquals(reversed.code, "invalid_arguments");
  const past = await setup.tools.call("read_file", { path: "hello.txt", startLine: 10 });
  assertEquals(past.code, "invalid_arguments");
  assertStringIncludes(past.text, "has 2 lines");
  const missing = await setup.tools.call("read_file", { path: "nope.txt" });
  assertEquals([missing.code, missing.text], ["tool_error", 'File "nope.txt" does not exist']);
  const extra = await setup.tools.call("read_file", { path: "hello.txt", offset: 2 });
  assertEquals(extra.code, "invalid_arguments");
});

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

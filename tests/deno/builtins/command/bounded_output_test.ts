import { assertEquals } from "@std/assert";
import { truncateMiddle } from "../../../../src/core/tool_output.ts";
import {
  BoundedOutput,
  drainInto,
  splitBudget,
} from "../../../../src/deno/builtins/command/bounded_output.ts";

Deno.test("BoundedOutput keeps short text whole, however it is split", () => {
  const output = new BoundedOutput(10);
  for (const piece of ["ab", "", "cdefg", "hij"]) output.push(piece);
  assertEquals(output.text(), "abcdefghij");
  assertEquals(output.totalChars, 10);
});

Deno.test("BoundedOutput matches truncateMiddle for long text, whatever the chunk sizes", () => {
  const text = Array.from({ length: 500 }, (_, i) => String(i)).join(",");
  for (const size of [1, 3, 7, 64, 1000, text.length]) {
    for (const max of [1, 2, 11, 100]) {
      const output = new BoundedOutput(max);
      for (let i = 0; i < text.length; i += size) output.push(text.slice(i, i + size));
      assertEquals(output.text(), truncateMiddle(text, max), `chunk ${size}, max ${max}`);
      assertEquals(output.totalChars, text.length);
    }
  }
});

Deno.test("drainInto() decodes UTF-8 split across chunks", async () => {
  const bytes = new TextEncoder().encode("grüße 天气");
  const stream = ReadableStream.from(Array.from(bytes, (b) => new Uint8Array([b])));
  const output = new BoundedOutput(100);
  await drainInto(stream, output);
  assertEquals(output.text(), "grüße 天气");
});

Deno.test("drainInto() stops when its stop signal aborts, for pipes that never close", async () => {
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode("partial"));
    },
    cancel() {
      cancelled = true;
    },
  });
  const stop = new AbortController();
  const output = new BoundedOutput(100);
  const done = drainInto(stream, output, { stop: stop.signal });
  setTimeout(() => stop.abort(), 20);
  await done;
  assertEquals(output.text(), "partial");
  assertEquals(cancelled, true);
});

Deno.test("BoundedOutput text(budget) cuts tighter exactly as truncateMiddle would", () => {
  const text = Array.from({ length: 300 }, (_, i) => String(i)).join(" ");
  for (const budget of [0, 1, 9, 40, 100]) {
    const output = new BoundedOutput(100);
    for (let i = 0; i < text.length; i += 13) output.push(text.slice(i, i + 13));
    assertEquals(output.text(budget), truncateMiddle(text, budget), `budget ${budget}`);
  }
  const short = new BoundedOutput(100);
  short.push("0123456789");
  assertEquals(short.text(4), truncateMiddle("0123456789", 4));
});

Deno.test("splitBudget() gives a short stream all it needs and the rest to the other", () => {
  assertEquals(splitBudget(100, { stdoutChars: 30, stderrChars: 40 }), { stdout: 30, stderr: 40 });
  assertEquals(splitBudget(100, { stdoutChars: 500, stderrChars: 10 }), { stdout: 90, stderr: 10 });
  assertEquals(splitBudget(100, { stdoutChars: 10, stderrChars: 500 }), { stdout: 10, stderr: 90 });
  assertEquals(splitBudget(101, { stdoutChars: 500, stderrChars: 500 }), {
    stdout: 51,
    stderr: 50,
  });
});

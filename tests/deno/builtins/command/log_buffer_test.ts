import { assertEquals } from "@std/assert";
import { LogBuffer } from "../../../../src/deno/builtins/command/log_buffer.ts";

Deno.test("LogBuffer reads from offsets that keep counting from the start", () => {
  const log = new LogBuffer(100);
  log.push("hello ");
  log.push("world\n");
  assertEquals(log.read(), { offset: 0, nextOffset: 12, text: "hello world\n", droppedChars: 0 });
  assertEquals(log.read(6), { offset: 6, nextOffset: 12, text: "world\n", droppedChars: 0 });
  assertEquals(log.read(6, 2), { offset: 6, nextOffset: 8, text: "wo", droppedChars: 0 });
  assertEquals(log.read(50), { offset: 12, nextOffset: 12, text: "", droppedChars: 0 });
});

Deno.test("LogBuffer keeps the last maxChars characters and reports what a reader missed", () => {
  const log = new LogBuffer(5);
  log.push("abc");
  log.push("defg");
  assertEquals(log.start, 2);
  assertEquals(log.end, 7);
  assertEquals(log.read(0), { offset: 2, nextOffset: 7, text: "cdefg", droppedChars: 2 });
  assertEquals(log.read(), { offset: 2, nextOffset: 7, text: "cdefg", droppedChars: 0 });
  log.push("0123456789");
  assertEquals(log.read(7), { offset: 12, nextOffset: 17, text: "56789", droppedChars: 5 });
});

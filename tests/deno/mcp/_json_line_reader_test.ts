import { assertEquals } from "@std/assert";
import { JsonLineReader, type OversizedLine } from "../../../src/deno/mcp/_json_line_reader.ts";

function read(chunks: Uint8Array[], max = 1024): { lines: string[]; oversized: OversizedLine[] } {
  const lines: string[] = [];
  const oversized: OversizedLine[] = [];
  const reader = new JsonLineReader(max, (l) => lines.push(l), (o) => oversized.push(o));
  for (const chunk of chunks) reader.push(chunk);
  reader.end();
  return { lines, oversized };
}

const bytes = (text: string) => new TextEncoder().encode(text);

Deno.test("JsonLineReader joins lines split across chunks, even inside a UTF-8 character", () => {
  const all = bytes('{"a":"é"}\r\n\n{"b":2}\n{"c"');
  const cut = all.indexOf(0xc3) + 1; // between the two bytes of "é"
  const { lines } = read([all.subarray(0, cut), all.subarray(cut, 15), all.subarray(15)]);
  assertEquals(lines, ['{"a":"é"}', '{"b":2}', '{"c"']);
});

Deno.test("JsonLineReader skips a line over its limit, keeping only head, tail and size", () => {
  const long = `{"result":"${"x".repeat(5000)}","id":7}`;
  const { lines, oversized } = read([
    bytes(long.slice(0, 3000)),
    bytes(long.slice(3000) + "\n{}\n"),
  ], 1000);
  assertEquals(lines, ["{}"]);
  assertEquals(oversized.length, 1);
  assertEquals(oversized[0].bytes, long.length);
  assertEquals(oversized[0].head, long.slice(0, 256));
  assertEquals(oversized[0].tail, long.slice(-256));
});

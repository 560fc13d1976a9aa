import { assertEquals } from "@std/assert";
import { joinText, splitText } from "../../../../src/deno/builtins/patch/text_lines.ts";

Deno.test("splitText() and joinText() round-trip line endings and the final newline", () => {
  for (const text of ["", "a", "a\n", "a\nb", "a\r\nb\r\n", "a\r\nb", "\n", "a\n\n"]) {
    const { lines, ...layout } = splitText(text);
    assertEquals(joinText(lines, layout), text, JSON.stringify(text));
  }
});

Deno.test("splitText() picks CRLF when most lines use it and splits either ending", () => {
  assertEquals(splitText("a\r\nb\r\nc\n"), {
    lines: ["a", "b", "c"],
    eol: "\r\n",
    trailingNewline: true,
  });
  assertEquals(splitText("a\nb\nc\r\n").eol, "\n");
});

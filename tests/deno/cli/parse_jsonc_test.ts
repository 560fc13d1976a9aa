import { assertEquals, assertThrows } from "@std/assert";
import { parseJsonc } from "../../../src/deno/cli/parse_jsonc.ts";

Deno.test("parseJsonc() drops comments and trailing commas but not inside strings", () => {
  assertEquals(
    parseJsonc('{ "a": "// not a comment", /* c */ "b": ["/* x */", 1,], // end\n }'),
    { a: "// not a comment", b: ["/* x */", 1] },
  );
  assertEquals(parseJsonc('{ "q": "say \\"hi\\", // ok" }'), { q: 'say "hi", // ok' });
});

Deno.test("parseJsonc() throws a SyntaxError for broken text", () => {
  assertThrows(() => parseJsonc("{ /* open"), SyntaxError, "Unterminated");
  assertThrows(() => parseJsonc("{ a: 1 }"), SyntaxError);
});

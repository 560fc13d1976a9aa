import { assertEquals, assertThrows } from "@std/assert";
import { parseJsonc } from "../../../src/deno/cli/parse_jsonc.ts";

Deno.test("parseJsonc() drops comments and trailing commas but not inside strings", () => {
  assertEquals(
    parseJsonc('{ "a": "// not a comment", /* c */ "b": ["/* x */", 1,], // end\n }'),
    { a: "// not a comment", b: ["/* x */", 1] },
  );
  assertEquals(parseJsonc('{ "q": "say \\"hi\\", // ok" }'), { q: 'say "hi", // ok' });
});

Deno.test("parseJsonc() says what is wrong and on which line and column", () => {
  assertThrows(
    () => parseJsonc('{\n  "a": 1\n  "b": 2\n}'),
    SyntaxError,
    'unexpected token "b" at line 3, column 3',
  );
  assertThrows(
    () => parseJsonc("{ a: 1 }"),
    SyntaxError,
    'unexpected token "a" at line 1, column 3',
  );
  assertThrows(
    () => parseJsonc('{\n  "a": [1,\n  /* open'),
    SyntaxError,
    "unexpected end of JSONC input at line 3: close every {, [, string and /* comment",
  );
});

Deno.test("parseJsonc() keeps a __proto__ key as data, not as the object's prototype", () => {
  const value = parseJsonc('{ "__proto__": { "polluted": true } }') as Record<string, unknown>;
  assertEquals(Object.getPrototypeOf(value), Object.prototype);
  assertEquals(Object.keys(value), ["__proto__"]);
});

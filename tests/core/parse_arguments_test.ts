import { assertEquals, assertThrows } from "@std/assert";
import { z } from "zod";
import {
  compileZodInput,
  describeParameters,
  parseArguments,
} from "../../src/core/parse_arguments.ts";
import { ToolError } from "../../mod.ts";

function rejects(args: unknown, pattern: RegExp, limits = {}): void {
  const error = assertThrows(() => parseArguments(args, limits), ToolError);
  assertEquals(error.code, "invalid_arguments");
  if (!pattern.test(error.message)) throw new Error(`"${error.message}" does not match ${pattern}`);
}

Deno.test("parseArguments() parses JSON text and passes objects through", () => {
  assertEquals(parseArguments('{"a":1,"b":[true,null]}'), { a: 1, b: [true, null] });
  assertEquals(parseArguments({ a: "x" }), { a: "x" });
});

Deno.test("parseArguments() treats empty text and undefined as no arguments", () => {
  assertEquals(parseArguments(""), {});
  assertEquals(parseArguments("  "), {});
  assertEquals(parseArguments(undefined), {});
});

Deno.test("parseArguments() rejects text that is not JSON", () => {
  rejects("{not json", /not valid JSON/);
});

Deno.test("parseArguments() rejects JSON that is not an object, and null", () => {
  rejects("[1,2]", /must be a JSON object, not an array/);
  rejects("42", /not a number/);
  rejects("null", /not null/);
  rejects(null, /not null/);
  rejects('"text"', /not a string/);
});

Deno.test("parseArguments() rejects text over the size limit before parsing it", () => {
  rejects(`{"a":"${"x".repeat(10 * 1024 * 1024)}"}`, /over the limit of 1000000/);
  rejects('{"a":"xxxxxxxx"}', /over the limit of 5/, { maxChars: 5 });
});

Deno.test("parseArguments() rejects nesting deeper than the limit, even 100 000 levels", () => {
  const deep = `{"a":${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
  rejects(deep, /nested deeper than 64 levels/);
  rejects({ a: { b: { c: 1 } } }, /deeper than 2/, { maxDepth: 2 });
});

Deno.test("parseArguments() rejects a cyclic object as too deep", () => {
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  rejects(cyclic, /nested deeper/);
});

Deno.test("parseArguments() rejects prototype keys and leaves Object.prototype alone", () => {
  rejects('{"__proto__":{"polluted":true}}', /"__proto__"/);
  rejects('{"a":{"constructor":{"prototype":{"polluted":true}}}}', /"constructor" at "a"/);
  rejects('{"a":[{"prototype":1}]}', /"prototype" at "a\[0\]"/);
  assertEquals(({} as Record<string, unknown>).polluted, undefined);
});

Deno.test("parseArguments() rejects numbers that are not finite", () => {
  rejects('{"n":1e309}', /number at "n" is out of range/);
  rejects({ n: Number.NaN }, /out of range/);
});

Deno.test("parseArguments() rejects values that are not JSON in parsed objects", () => {
  rejects({ f: () => 1 }, /not JSON \(function\)/);
  rejects({ n: 1n }, /not JSON \(bigint\)/);
});

Deno.test("parseArguments() applies the size limit to an object the host passes, stopping early", () => {
  rejects({ a: "x".repeat(2_000_000) }, /characters long as JSON, over the limit of 1000000/);
  // A wide object: the walk stops at the limit instead of visiting every element.
  const list: number[] = Array.from({ length: 3_000_000 }, () => 1);
  let lastRead = false;
  Object.defineProperty(list, 2_999_999, {
    get: () => {
      lastRead = true;
      return 1;
    },
    enumerable: true,
  });
  rejects({ list }, /over the limit of 1000000/);
  assertEquals(lastRead, false, "the walk stopped at the limit");
  rejects({ a: { b: "xxxxxxxx" } }, /over the limit of 10/, { maxChars: 10 });
  assertEquals(parseArguments({ a: "xx" }, { maxChars: 20 }), { a: "xx" });
  // The text limit and the object limit agree on what is small enough.
  const value = { path: "a.txt", content: "y".repeat(900_000) };
  assertEquals(parseArguments(value), value);
  assertEquals(parseArguments(JSON.stringify(value)), value);
});

Deno.test("compileZodInput() makes the schema strict and drops $schema from the JSON Schema", () => {
  const input = compileZodInput(z.object({ a: z.string() }), "t");
  assertEquals(input.jsonSchema, {
    type: "object",
    properties: { a: { type: "string" } },
    required: ["a"],
    additionalProperties: false,
  });
  assertEquals(input.parse({ a: "x" }, "t"), { a: "x" });
});

Deno.test("compileZodInput() lists up to five problems with their paths", () => {
  const input = compileZodInput(
    z.object({
      a: z.string(),
      b: z.string(),
      c: z.string(),
      d: z.string(),
      e: z.string(),
      f: z.string(),
    }),
    "t",
  );
  const error = assertThrows(() => input.parse({}, "t"), ToolError);
  assertEquals(error.code, "invalid_arguments");
  assertEquals(error.message.includes('"e":') && !error.message.includes('"f":'), true);
  assertEquals(error.message.includes("and 1 more"), true);
});

Deno.test("compileZodInput() rejects a schema that is not a zod object", () => {
  assertThrows(() => compileZodInput(z.array(z.string()), "t"), TypeError, "zod object schema");
});

Deno.test("describeParameters() names types, enums and required fields", () => {
  assertEquals(
    describeParameters({
      type: "object",
      properties: {
        a: { type: "string" },
        b: { enum: ["x", "y"] },
        c: { anyOf: [{ type: "number" }, { type: "null" }] },
      },
      required: ["a"],
    }),
    'Expected parameters: a (string, required), b ("x" | "y"), c (number | null)',
  );
  assertEquals(describeParameters({ type: "object" }), "This tool takes no parameters: send {}");
});

import { assertEquals, assertThrows } from "@std/assert";
import { z } from "zod";
import { compileZodInput, describeParameters } from "../../src/core/zod_input.ts";
import { ToolError } from "../../mod.ts";

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

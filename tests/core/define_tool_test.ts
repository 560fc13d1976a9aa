import { assertEquals, assertThrows } from "@std/assert";
import { z } from "zod";
import { defineTool } from "../../mod.ts";

Deno.test("defineTool() makes a function tool with a strict JSON Schema", () => {
  const tool = defineTool({
    name: "get_weather",
    description: "Weather for a city",
    input: z.object({
      city: z.string().describe("City name"),
      units: z.enum(["c", "f"]).optional(),
    }),
    run: ({ city }) => city,
  });
  assertEquals([tool.name, tool.source, tool.origin], ["get_weather", "function", "get_weather"]);
  assertEquals(tool.inputSchema, {
    type: "object",
    properties: {
      city: { type: "string", description: "City name" },
      units: { type: "string", enum: ["c", "f"] },
    },
    required: ["city"],
    additionalProperties: false,
  });
});

Deno.test("defineTool() passes typed, parsed arguments and the context to run", async () => {
  const tool = defineTool({
    name: "t",
    description: "d",
    input: z.object({ n: z.coerce.number(), when: z.string().default("now") }),
    run: (args, ctx) => ({ doubled: args.n * 2, when: args.when, user: ctx.userId }),
  });
  const value = await tool.execute({ n: "21" }, {
    signal: new AbortController().signal,
    userId: "u1",
  });
  assertEquals(value, { doubled: 42, when: "now", user: "u1" });
});

Deno.test("defineTool() throws a TypeError for an invalid name, naming a valid one", () => {
  const error = assertThrows(
    () => defineTool({ name: "get weather", description: "d", input: z.object({}), run: () => "" }),
    TypeError,
  );
  assertEquals(error.message.includes('"tool_get_weather" would be valid'), true);
  assertThrows(
    () => defineTool({ name: "", description: "d", input: z.object({}), run: () => "" }),
    TypeError,
  );
  assertThrows(
    () =>
      defineTool({ name: "x".repeat(65), description: "d", input: z.object({}), run: () => "" }),
    TypeError,
  );
});

Deno.test("defineTool() throws a TypeError for a missing description, schema or handler", () => {
  // deno-lint-ignore no-explicit-any
  const bad = (spec: any) => assertThrows(() => defineTool(spec), TypeError);
  bad({ name: "t", input: z.object({}), run: () => "" });
  bad({ name: "t", description: "d", input: z.string(), run: () => "" });
  bad({ name: "t", description: "d", input: { type: "object" }, run: () => "" });
  bad({ name: "t", description: "d", input: z.object({}) });
  bad(null);
});

Deno.test("defineTool() keeps an explicit catchall instead of forcing strict", () => {
  const tool = defineTool({
    name: "t",
    description: "d",
    input: z.object({ a: z.string() }).catchall(z.number()),
    run: (args) => args,
  });
  assertEquals(tool.inputSchema.additionalProperties, { type: "number" });
});

import { assertEquals } from "@std/assert";
import { z } from "zod";
import { isOpenAIStrictSchema, upstreamInputSchema } from "../../src/core/strict_schema.ts";
import { defineTool, ToolRouter } from "../../mod.ts";

Deno.test("isOpenAIStrictSchema() accepts closed objects with every property required", () => {
  assertEquals(
    isOpenAIStrictSchema({ type: "object", properties: {}, additionalProperties: false }),
    true,
  );
  assertEquals(
    isOpenAIStrictSchema({
      type: "object",
      properties: {
        city: { type: "string", description: "City" },
        tags: { type: "array", items: { type: "string", enum: ["a", "b"] } },
        where: {
          anyOf: [{ type: "null" }, {
            type: "object",
            properties: { lat: { type: "number" } },
            required: ["lat"],
            additionalProperties: false,
          }],
        },
      },
      required: ["city", "tags", "where"],
      additionalProperties: false,
      $schema: "https://json-schema.org/draft/2020-12/schema",
    }),
    true,
  );
});

Deno.test("isOpenAIStrictSchema() refuses optional properties, open objects and unsupported keywords", () => {
  const base = { type: "object" as const, additionalProperties: false };
  assertEquals(isOpenAIStrictSchema({ ...base, properties: { a: { type: "string" } } }), false);
  assertEquals(isOpenAIStrictSchema({ type: "object", properties: {} }), false);
  assertEquals(
    isOpenAIStrictSchema({
      ...base,
      properties: { a: { type: "object", properties: {} } },
      required: ["a"],
    }),
    false,
  );
  for (const keyword of [{ allOf: [] }, { oneOf: [] }, { default: "x" }, { not: {} }]) {
    assertEquals(
      isOpenAIStrictSchema({
        ...base,
        properties: { a: { type: "string", ...keyword } },
        required: ["a"],
      }),
      false,
      JSON.stringify(keyword),
    );
  }
  assertEquals(isOpenAIStrictSchema({ anyOf: [] } as never), false);
});

Deno.test("upstreamInputSchema() closes no-parameter schemas and keeps every other one as it is", () => {
  const closed = { type: "object", properties: {}, additionalProperties: false };
  assertEquals(upstreamInputSchema(undefined), closed);
  assertEquals(upstreamInputSchema({ type: "object" }), closed);
  assertEquals(upstreamInputSchema({ type: "object", properties: {}, $schema: "x" }), {
    ...closed,
    $schema: "x",
  });
  const open = { type: "object", additionalProperties: true };
  assertEquals(upstreamInputSchema(open), open);
  const named = {
    type: "object",
    properties: { a: { type: "string" } },
    additionalProperties: false,
  };
  assertEquals(upstreamInputSchema(named) === named as unknown, true);
});

Deno.test("ToolSet#tools sets strict: true exactly for tools whose schema allows it", async () => {
  const all = defineTool({
    name: "all",
    description: "Every parameter required",
    input: z.object({ a: z.string(), b: z.number() }),
    run: () => "",
  });
  const optional = defineTool({
    name: "optional",
    description: "An optional parameter",
    input: z.object({ a: z.string().optional() }),
    run: () => "",
  });
  const tools = await new ToolRouter({ functions: [all, optional] }).expose({
    functions: ["all", "optional"],
  });
  assertEquals(tools.tools.map((tool) => [tool.function.name, tool.function.strict]), [
    ["all", true],
    ["optional", undefined],
  ]);
});

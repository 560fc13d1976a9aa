import { assertEquals } from "@std/assert";
import { SharedSchemaValidator } from "../../../../../src/core/mcp/gateway/connection/shared_schema_validator.ts";
import type { McpJsonSchemaValidator } from "../../../../../src/core/mcp/mcp_transport.ts";

function counting(): { validator: McpJsonSchemaValidator; compiled: string[] } {
  const compiled: string[] = [];
  return {
    compiled,
    validator: {
      getValidator<T>(schema: Record<string, unknown>) {
        compiled.push(JSON.stringify(schema));
        const type = schema.type;
        const kind = (input: unknown): string => typeof input;
        return (input: unknown) =>
          kind(input) === type
            ? { valid: true as const, data: input as T, errorMessage: undefined }
            : { valid: false as const, data: undefined, errorMessage: `not a ${String(type)}` };
      },
    },
  };
}

Deno.test("SharedSchemaValidator compiles each distinct schema once, however many objects carry it", () => {
  const { validator, compiled } = counting();
  const shared = new SharedSchemaValidator(validator);
  const first = shared.getValidator({ type: "string" });
  for (let i = 0; i < 100; i++) shared.getValidator(JSON.parse('{"type":"string"}'));
  const other = shared.getValidator({ type: "number" });
  assertEquals(compiled, ['{"type":"string"}', '{"type":"number"}']);
  assertEquals(first("x").valid, true);
  assertEquals(other("x").valid, false);
  assertEquals(shared.size, 2);
});

Deno.test("SharedSchemaValidator keeps at most maxSchemas, dropping the least recently used", () => {
  const { validator, compiled } = counting();
  const shared = new SharedSchemaValidator(validator, { maxSchemas: 2 });
  shared.getValidator({ type: "string" });
  shared.getValidator({ type: "number" });
  shared.getValidator({ type: "string" }); // now the most recent
  shared.getValidator({ type: "boolean" }); // drops "number"
  assertEquals(shared.size, 2);
  shared.getValidator({ type: "string" });
  shared.getValidator({ type: "number" });
  assertEquals(compiled.length, 4);
});

Deno.test("SharedSchemaValidator uses the SDK's ajv validator by default", () => {
  const shared = new SharedSchemaValidator();
  const validate = shared.getValidator<{ n: number }>({
    type: "object",
    properties: { n: { type: "number" } },
    required: ["n"],
  });
  assertEquals(validate({ n: 1 }).valid, true);
  assertEquals(validate({ n: "1" }).valid, false);
});

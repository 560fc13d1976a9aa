/**
 * One validator serves every connection of a gateway: a schema's `$id` must not let one server's
 * schema stand for another's (ajv keeps the first schema compiled under an id for all later ones).
 *
 * @module
 */
import { assertEquals } from "@std/assert";
import { SharedSchemaValidator } from "../../../../../src/core/mcp/gateway/connection/shared_schema_validator.ts";

const ID = "https://bank.example/schemas/balance.json";
const BALANCE = {
  $id: ID,
  type: "object",
  properties: { cents: { type: "integer" } },
  required: ["cents"],
};

Deno.test("a schema that claims another server's $id neither refuses nor waves through that server's results", () => {
  for (const hostile of [{ $id: ID, not: {} }, { $id: ID }]) {
    const shared = new SharedSchemaValidator();
    // The attack ran: the hostile schema was compiled first and is in force for its own tool.
    const lure = shared.getValidator(hostile);
    assertEquals(lure({ cents: 1 }).valid, !("not" in hostile));
    const balance = shared.getValidator(BALANCE);
    assertEquals(balance({ cents: 4200 }).valid, true);
    assertEquals(balance({ cents: "lots" }).valid, false);
  }
});

Deno.test("a schema whose nested $id another schema declared compiles and checks as its own", () => {
  const shared = new SharedSchemaValidator();
  shared.getValidator(BALANCE);
  const nested = shared.getValidator({
    type: "object",
    properties: { name: { $id: ID, type: "string" } },
  });
  assertEquals(nested({ name: "x" }).valid, true);
  assertEquals(nested({ name: 1 }).valid, false);
});

import { assertEquals, assertMatch } from "@std/assert";
import { cfWorkerJsonSchemaValidator } from "../../../src/core/mcp/cfworker_validator.ts";

const forecast = {
  type: "object",
  properties: {
    city: { type: "string" },
    celsius: { type: "number", minimum: -90 },
  },
  required: ["city", "celsius"],
  additionalProperties: false,
};

Deno.test("cfWorkerJsonSchemaValidator() accepts a value that matches and returns it as data", () => {
  const check = cfWorkerJsonSchemaValidator().getValidator(forecast);
  const value = { city: "Oslo", celsius: 3 };
  assertEquals(check(value), { valid: true, data: value, errorMessage: undefined });
});

Deno.test("cfWorkerJsonSchemaValidator() names the failing location in the message", () => {
  const check = cfWorkerJsonSchemaValidator().getValidator(forecast);
  const result = check({ city: "Oslo", celsius: "warm" });
  assertEquals(result.valid, false);
  assertEquals(result.data, undefined);
  assertMatch(result.errorMessage ?? "", /#\/celsius: Instance type "string" is invalid/);
  assertMatch(check({ city: "Oslo" }).errorMessage ?? "", /required property "celsius"/);
  assertEquals(check({ city: "Oslo", celsius: 1, extra: true }).valid, false);
});

Deno.test("cfWorkerJsonSchemaValidator() reports every error when shortcircuit is off", () => {
  const all = cfWorkerJsonSchemaValidator({ shortcircuit: false }).getValidator(forecast);
  const first = cfWorkerJsonSchemaValidator().getValidator(forecast);
  const bad = { city: 1, celsius: -100 };
  const count = (message = "") => message.split("; ").length;
  assertEquals(count(all(bad).errorMessage) > count(first(bad).errorMessage), true);
});

Deno.test("cfWorkerJsonSchemaValidator() follows the chosen draft", () => {
  // Draft 4 reads exclusiveMaximum as a boolean modifier of maximum; 2020-12 as a number.
  const draft4 = cfWorkerJsonSchemaValidator({ draft: "4" }).getValidator({
    type: "number",
    maximum: 10,
    exclusiveMaximum: true,
  });
  assertEquals(draft4(10).valid, false);
  assertEquals(draft4(9).valid, true);
  const latest = cfWorkerJsonSchemaValidator().getValidator({
    type: "number",
    exclusiveMaximum: 10,
  });
  assertEquals(latest(10).valid, false);
});

Deno.test("cfWorkerJsonSchemaValidator() validates with code generation disabled", () => {
  // Edge runtimes forbid `new Function` and `eval`; ajv (the SDK's default) needs them.
  const saved = { Function: globalThis.Function, eval: globalThis.eval };
  const forbid = () => {
    throw new EvalError("Code generation from strings disallowed for this context");
  };
  Object.assign(globalThis, { Function: forbid, eval: forbid });
  try {
    const check = cfWorkerJsonSchemaValidator().getValidator({
      ...forecast,
      properties: { ...forecast.properties, city: { type: "string", pattern: "^[A-Z]" } },
    });
    assertEquals(check({ city: "Oslo", celsius: 3 }).valid, true);
    assertEquals(check({ city: "oslo", celsius: 3 }).valid, false);
  } finally {
    Object.assign(globalThis, saved);
  }
});

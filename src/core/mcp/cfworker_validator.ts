import { type Schema, Validator } from "@cfworker/json-schema";
import type { McpJsonSchemaValidation, McpJsonSchemaValidator } from "./mcp_transport.ts";

/** Options of {@linkcode cfWorkerJsonSchemaValidator}. */
export interface CfWorkerValidatorOptions {
  /** The JSON Schema draft. Default: `"2020-12"`. */
  draft?: "4" | "7" | "2019-09" | "2020-12";
  /** Stop at the first error instead of reporting all. Default: `true`. */
  shortcircuit?: boolean;
}

/**
 * A JSON Schema validator that never generates code (npm `@cfworker/json-schema`), for MCP
 * clients on edge runtimes. It behaves as the MCP SDK's `CfWorkerJsonSchemaValidator` (same
 * defaults, same error text).
 *
 * The MCP SDK validates tool output schemas with ajv by default, which compiles each schema with
 * `new Function`; Cloudflare Workers and other edge runtimes forbid that, and listing a server
 * whose tools declare an `outputSchema` fails with `EvalError: Code generation from strings
 * disallowed`. Pass this as the gateway's `jsonSchemaValidator` there. On Deno the default
 * (ajv) is faster.
 *
 * @example Validate a tool's structured output without code generation
 * ```ts
 * import { cfWorkerJsonSchemaValidator } from "@toolroute/toolroute/mcp";
 * import { assertEquals } from "@std/assert";
 *
 * const validator = cfWorkerJsonSchemaValidator();
 * const check = validator.getValidator({
 *   type: "object",
 *   properties: { celsius: { type: "number" } },
 *   required: ["celsius"],
 * });
 * assertEquals(check({ celsius: 21 }).valid, true);
 * assertEquals(check({ celsius: "warm" }).valid, false);
 * ```
 *
 * @param options The draft and whether to stop at the first error.
 * @returns The validator, for `jsonSchemaValidator` options.
 */
export function cfWorkerJsonSchemaValidator(
  options: CfWorkerValidatorOptions = {},
): McpJsonSchemaValidator {
  const draft = options.draft ?? "2020-12";
  const shortcircuit = options.shortcircuit ?? true;
  return {
    getValidator<T>(
      schema: Record<string, unknown>,
    ): (input: unknown) => McpJsonSchemaValidation<T> {
      const validator = new Validator(schema as Schema, draft, shortcircuit);
      return (input: unknown): McpJsonSchemaValidation<T> => {
        const result = validator.validate(input);
        if (result.valid) return { valid: true, data: input as T, errorMessage: undefined };
        const errorMessage = result.errors
          .map((error) => `${error.instanceLocation}: ${error.error}`)
          .join("; ");
        return { valid: false, data: undefined, errorMessage };
      };
    },
  };
}

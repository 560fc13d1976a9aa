import { CfWorkerJsonSchemaValidator } from "./mcp_sdk.ts";
import type { McpJsonSchemaValidator } from "./mcp_transport.ts";

/** Options of {@linkcode cfWorkerJsonSchemaValidator}. */
export interface CfWorkerValidatorOptions {
  /** The JSON Schema draft. Default: `"2020-12"`. */
  draft?: "4" | "7" | "2019-09" | "2020-12";
  /** Stop at the first error instead of reporting all. Default: `true`. */
  shortcircuit?: boolean;
}

/**
 * A JSON Schema validator that never generates code (npm `@cfworker/json-schema`), for MCP
 * clients on edge runtimes: the MCP SDK's `CfWorkerJsonSchemaValidator` with one draft for every
 * schema (2020-12 unless told). It is the SDK's own copy, not a second one: the SDK bundles its
 * cfworker engine into its edge builds as their default validator anyway, so an edge bundle
 * carries the engine once.
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
  // A forced draft: the SDK's own dispatch on `$schema` would reject schemas this accepted.
  return new CfWorkerJsonSchemaValidator({
    draft: options.draft ?? "2020-12",
    shortcircuit: options.shortcircuit ?? true,
  });
}

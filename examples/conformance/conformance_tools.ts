/**
 * The tool fixtures the MCP conformance suite (server mode) calls, as function tools, so that
 * `toolroute serve` can be checked by it: `deno task conformance` or
 * `tests/deno/cli/conformance_server_test.ts`.
 *
 * Only text results exist in toolroute (results are text for a model), so the image, audio,
 * embedded-resource, logging, sampling and elicitation fixtures are not provided.
 *
 * @module
 */
import { defineTool, type FunctionTool } from "@toolroute/toolroute";
import { z } from "zod";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `test_simple_text`: returns a fixed text. */
export const simpleText: FunctionTool = defineTool({
  name: "test_simple_text",
  description: "Returns simple text content",
  input: z.object({}),
  run: () => "This is a simple text response for testing.",
});

/** `test_error_handling`: always fails. */
export const errorHandling: FunctionTool = defineTool({
  name: "test_error_handling",
  description: "Always returns an error",
  input: z.object({}),
  run: () => {
    throw new Error("This tool intentionally returns an error for testing");
  },
});

/** `test_tool_with_progress`: reports 0, 50 and 100 of 100, 50 ms apart. */
export const withProgress: FunctionTool = defineTool({
  name: "test_tool_with_progress",
  description: "Reports progress notifications",
  input: z.object({}),
  run: async (_args, context) => {
    for (const progress of [0, 50, 100]) {
      context.onProgress?.({ progress, total: 100 });
      if (progress < 100) await sleep(50);
    }
    return "Progress test completed";
  },
});

/**
 * `json_schema_2020_12_tool`: a tool whose input schema uses `$schema`, `$defs` and `$ref`,
 * written directly as a routed tool so the schema reaches clients exactly as written.
 */
export const jsonSchema202012: FunctionTool = {
  name: "json_schema_2020_12_tool",
  description: "Tool with JSON Schema 2020-12 features",
  inputSchema: {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    $defs: {
      address: {
        type: "object",
        properties: { street: { type: "string" }, city: { type: "string" } },
      },
    },
    properties: { name: { type: "string" }, address: { $ref: "#/$defs/address" } },
    additionalProperties: false,
  },
  source: "function",
  origin: "json_schema_2020_12_tool",
  execute: (args) => args,
};

/**
 * The remote server's tools for the edge tests: `forecast` declares an `outputSchema`, which
 * makes the MCP SDK client compile a JSON Schema validator when it lists the tools (ajv's code
 * generation, forbidden on edge runtimes, unless another validator is injected).
 *
 * @module
 */

import * as z from "zod";
import type { RegisterTools } from "../_helpers/mcp_test_server.ts";

/**
 * Registers `forecast {city}` → `{ city, celsius, sky }` as structured content.
 *
 * @param server The SDK server of one session.
 */
export const forecastTools: RegisterTools = (server) => {
  server.registerTool("forecast", {
    description: "Tomorrow's weather for a city",
    inputSchema: z.object({ city: z.string() }),
    outputSchema: z.object({
      city: z.string(),
      celsius: z.number(),
      sky: z.enum(["clear", "rain", "snow"]),
    }),
  }, ({ city }) => {
    const structuredContent = { city, celsius: 3, sky: "snow" as const };
    return {
      content: [{ type: "text", text: JSON.stringify(structuredContent) }],
      structuredContent,
    };
  });
};

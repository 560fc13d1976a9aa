/**
 * The tools of the v2-SDK interop servers (`@modelcontextprotocol/server` 2.x).
 *
 * @module
 */
import type { McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";

/** A 1×1 PNG. */
export const V2_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/**
 * Registers `echo {text}` and `picture` (image content plus `structuredContent` matching its
 * output schema).
 *
 * @param server A v2 `McpServer`.
 */
export function registerV2Tools(server: McpServer): void {
  server.registerTool("echo", {
    description: "Echoes text",
    inputSchema: z.object({ text: z.string() }),
  }, ({ text }) => ({ content: [{ type: "text", text: `v2: ${text}` }] }));
  server.registerTool("picture", {
    description: "An image with a structured result",
    inputSchema: z.object({}),
    outputSchema: z.object({ width: z.number(), height: z.number() }),
  }, () => ({
    content: [
      { type: "text", text: "a 1x1 picture" },
      { type: "image", data: V2_PNG, mimeType: "image/png" },
    ],
    structuredContent: { width: 1, height: 1 },
  }));
}

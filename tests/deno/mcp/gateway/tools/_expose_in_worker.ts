/**
 * A Web Worker for `remote_text_test.ts`: on a message `{ url }` it lists the tools of the 2025-era
 * MCP server at `url` through a fresh `McpGateway` and router, and posts back
 * `{ names, missing, listed }` (`listed`: the tools' JSON as a model would see them), or
 * `{ error }`. A worker runs on a thread of its own, with a smaller stack than the main thread's.
 *
 * @module
 */

import { ToolRouter } from "../../../../../mod.ts";
import { McpGateway } from "../../../../../src/core/mcp/mod.ts";

// Type-checked with the window library beside the other tests: the worker's scope, typed by hand.
const scope = self as unknown as {
  onmessage: (event: MessageEvent<{ url: string }>) => void;
  postMessage(message: unknown): void;
};

scope.onmessage = async ({ data }: MessageEvent<{ url: string }>) => {
  try {
    await using gateway = new McpGateway({
      servers: { evil: { url: data.url, protocol: "2025" } },
    });
    const toolSet = await new ToolRouter({ gateway }).expose({ mcpServers: ["evil"] });
    scope.postMessage({
      names: toolSet.names,
      missing: toolSet.missing.map((entry) => entry.reason),
      listed: JSON.stringify(toolSet.toMcp()),
    });
  } catch (error) {
    scope.postMessage({ error: String(error) });
  }
};

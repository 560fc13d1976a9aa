/**
 * A stdio MCP server built on the split v2 SDK (`@modelcontextprotocol/server` 2.x), for the
 * gateway's interop tests: `echo {text}`, and `picture` (an image with a structured result).
 *
 * Usage: `deno run --no-prompt tests/_fixtures/v2_stdio_server.ts`
 *
 * @module
 */
import { McpServer } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { registerV2Tools } from "./_v2_tools.ts";

const server = new McpServer({ name: "v2-stdio", version: "2.0.0" });
registerV2Tools(server);
await server.connect(new StdioServerTransport());

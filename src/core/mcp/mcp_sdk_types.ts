/**
 * The MCP SDK's protocol types that code without the SDK at run time needs (a mounted service,
 * listing and calling tools over any client). Type-only: importing this bundles nothing, so the
 * root entry's graph never reaches `mcp_sdk.ts`, the one module that imports the SDK's code.
 *
 * @module
 */

export type { CallToolResult, Client, Tool as McpTool } from "@modelcontextprotocol/client";

/**
 * A tiny stdio MCP server for `demo_mcp_stdio.ts`: `note {text}` keeps a note in memory, `notes`
 * lists them, `peek {path}` tries to read a file (to show the child has no permission), `crash`
 * exits mid-call. Uses the SDK's `StdioServerTransport`, which runs under Deno.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/server/mcp"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
// @ts-types="@modelcontextprotocol/sdk/server/stdio"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const notes: string[] = [];
const server = new McpServer({ name: "notes", version: "1.0.0" });
const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });
server.registerTool("note", {
  description: "Keeps a note",
  inputSchema: { text: z.string() },
}, ({ text: note }) => text(`noted #${notes.push(note)} (pid ${Deno.pid})`));
server.registerTool(
  "notes",
  { description: "Lists the notes", inputSchema: {} },
  () => text(notes.join("\n") || "(none)"),
);
server.registerTool("peek", {
  description: "Reads a file",
  inputSchema: { path: z.string() },
}, ({ path }) => {
  try {
    return text(Deno.readTextFileSync(path));
  } catch (error) {
    return text(`cannot read ${path}: ${(error as Error).name}`);
  }
});
server.registerTool("crash", { description: "Exits mid-call", inputSchema: {} }, () => {
  setTimeout(() => Deno.exit(1), 10);
  return new Promise(() => {});
});
await server.connect(new StdioServerTransport());

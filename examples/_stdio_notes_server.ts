/**
 * A tiny stdio MCP server for `demo_mcp_stdio.ts`: `note {text}` keeps a note in memory, `notes`
 * lists them, `peek {path}` tries to read a file (to show the child has no permission), `crash`
 * exits mid-call. Uses the SDK's `StdioServerTransport`, which runs under Deno.
 *
 * @module
 */
import { McpServer } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

const notes: string[] = [];
const server = new McpServer({ name: "notes", version: "1.0.0" });
const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });
server.registerTool("note", {
  description: "Keeps a note",
  inputSchema: z.object({ text: z.string() }),
}, ({ text: note }) => text(`noted #${notes.push(note)} (pid ${Deno.pid})`));
server.registerTool(
  "notes",
  { description: "Lists the notes", inputSchema: z.object({}) },
  () => text(notes.join("\n") || "(none)"),
);
server.registerTool("peek", {
  description: "Reads a file",
  inputSchema: z.object({ path: z.string() }),
}, ({ path }) => {
  try {
    return text(Deno.readTextFileSync(path));
  } catch (error) {
    return text(`cannot read ${path}: ${(error as Error).name}`);
  }
});
server.registerTool("crash", { description: "Exits mid-call", inputSchema: z.object({}) }, () => {
  setTimeout(() => Deno.exit(1), 10);
  return new Promise(() => {});
});
await server.connect(new StdioServerTransport());

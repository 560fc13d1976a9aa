import { assertEquals } from "@std/assert";
import { startProgress } from "../../../src/deno/cli/start_progress.ts";

Deno.test("startProgress() writes one line per starting server on a terminal, none for a reconnect or other events", () => {
  const lines: string[] = [];
  const progress = startProgress({
    out: () => {},
    err: (line) => lines.push(line),
    terminal: true,
  })!;
  progress({ type: "connecting", serverId: "files" });
  progress({ type: "connected", serverId: "files", tools: 3 });
  progress({ type: "connecting", serverId: "crm", userId: "alice" });
  progress({ type: "connecting", serverId: "files" }); // a reconnect
  assertEquals(lines, [
    'toolroute: starting MCP server "files"…',
    'toolroute: starting MCP server "crm" of user "alice"…',
  ]);
});

Deno.test("startProgress() gives nothing when stderr is not a terminal", () => {
  assertEquals(startProgress({ out: () => {}, err: () => {} }), undefined);
  assertEquals(startProgress({ out: () => {}, err: () => {}, terminal: false }), undefined);
});

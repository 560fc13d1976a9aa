/**
 * The core part of the demo: a scripted model conversation (no LLM, no network) against a router
 * with a function tool, a local MCP service and a mounted SDK `McpServer`, then the same selection
 * deferred: the model searches for a tool and calls what the search listed.
 */
import { z } from "zod";
import { defineMcpService, defineTool, ToolRouter, type ToolSelection } from "../mod.ts";
import { McpServer } from "@modelcontextprotocol/server";
import { mountMcpServer } from "../src/core/mcp/mod.ts";
import { table } from "./_table.ts";

/** Runs the core demo, printing its tables. */
export async function demoCore(print: (line: string) => void): Promise<void> {
  const getWeather = defineTool({
    name: "get_weather",
    description: "Current weather for a city",
    input: z.object({ city: z.string(), units: z.enum(["c", "f"]).default("c") }),
    run: ({ city, units }) => ({ city, temperature: units === "c" ? 21 : 70, sky: "clear" }),
  });
  const deleteAccount = defineTool({
    name: "delete_account",
    description: "Deletes the user's account (never exposed to this model)",
    input: z.object({}),
    run: () => "account deleted",
  });
  const notes = defineMcpService({
    name: "notes",
    description: "A tiny notes service",
    tools: {
      search: {
        description: "Search notes",
        input: z.object({ query: z.string().min(1) }),
        run: ({ query }) => [`note about ${query}`],
      },
    },
  });
  // A function tool named like the service's tool: the local MCP service wins and it is reported.
  const shadowed = defineTool({
    name: "notes_search",
    description: "An older notes search",
    input: z.object({ query: z.string() }),
    run: () => "old search",
  });
  const clock = new McpServer({ name: "clock", version: "1.0.0" });
  clock.registerTool("now", {
    description: "The current time in a zone",
    inputSchema: z.object({ zone: z.string() }),
  }, ({ zone }) => ({
    content: [{ type: "text", text: `12:00 in ${zone}` }],
  }));

  await using router = new ToolRouter({
    functions: [getWeather, deleteAccount, shadowed],
    mcpServices: [notes],
  });
  router.addMcpService(await mountMcpServer("clock", clock));

  const selection: ToolSelection = {
    functions: ["get_weather", "notes_search"],
    mcpServices: ["notes", "clock"],
    userId: "alice",
  };
  const toolSet = await router.expose(selection);
  print("Request 1 exposes (delete_account is registered but not selected):");
  table(
    print,
    ["tool", "source"],
    toolSet.names.map((name) => [name, toolSet.sourceOf(name) ?? ""]),
  );
  print("");
  print("Shadowed names (the higher source wins, the loser is reported):");
  table(
    print,
    ["name", "winner", "hidden"],
    toolSet.shadowed.map((s) => [s.name, s.winner, s.hidden.join(", ")]),
  );
  print("");

  // What a model might answer, one tool call per turn.
  const modelCalls: [string, string][] = [
    ["get_weather", '{"city":"Oslo"}'],
    ["notes_search", '{"query":"deno"}'],
    ["clock_now", '{"zone":"UTC"}'],
    ["delete_account", "{}"],
    ["get_weather", '{"town":"Oslo"}'],
  ];
  const rows: string[][] = [];
  for (const [name, args] of modelCalls) {
    const result = await toolSet.call(name, args);
    rows.push([
      name,
      args,
      result.source ?? "-",
      result.isError ? `error: ${result.code}` : "ok",
      result.text,
    ]);
  }
  print("Model calls and what toolroute returned:");
  table(print, ["call", "arguments", "source", "status", "text for the model"], rows);

  // Request 2 defers the same selection: the model gets search_tools, and a search lists the
  // tools it finds (only tools this request may use), appended so the prompt cache holds.
  const deferred = await router.expose({ ...selection, defer: true });
  print("");
  print(`Request 2, deferred, lists: ${deferred.names.join(", ")}`);
  const search = await deferred.call("search_tools", {
    query: "what time is it in a time zone",
    limit: 2,
  });
  print(`search_tools {"query":"what time is it in a time zone","limit":2} → ${search.text}`);
  print(`now it lists: ${deferred.names.join(", ")}`);
  const now = await deferred.call("clock_now", { zone: "UTC" });
  print(`clock_now {"zone":"UTC"} → ${now.text}`);
  const hidden = await deferred.call("search_tools", { query: "delete the account" });
  print(`search_tools {"query":"delete the account"} → ${hidden.text} (not selected: never found)`);
}

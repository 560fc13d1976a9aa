import { assertEquals } from "@std/assert";
import { ToolSearchIndex } from "../../src/core/tool_search_index.ts";
import type { RoutedTool } from "../../src/core/tool_source.ts";

function tool(
  origin: string,
  description: string,
  extra: { parameters?: string[]; title?: string } = {},
): RoutedTool {
  const slash = origin.indexOf("/");
  return {
    name: slash < 0 ? origin : origin.slice(slash + 1),
    description,
    inputSchema: {
      type: "object",
      properties: Object.fromEntries((extra.parameters ?? []).map((key) => [key, {}])),
    },
    ...(extra.title === undefined ? {} : { annotations: { title: extra.title } }),
    source: slash < 0 ? "function" : "global_mcp",
    origin,
    execute: () => "",
  };
}

function names(index: ToolSearchIndex, query: string, limit = 5): string[] {
  return index.search(query, limit).map((found) => found.origin);
}

Deno.test("search matches names split at _ and camelCase, and words with their suffixes stripped", () => {
  const index = new ToolSearchIndex([
    tool("listPullRequests", "Lists them"),
    tool("create_branch", "Makes a branch"),
    tool("get_weather", "Forecast for a city"),
  ]);
  assertEquals(names(index, "pull request"), ["listPullRequests"]);
  assertEquals(names(index, "creating branches"), ["create_branch"]);
  assertEquals(names(index, "forecasts"), ["get_weather"]);
});

Deno.test("search matches parameter names, titles and the server a tool comes from", () => {
  const index = new ToolSearchIndex([
    tool("crm/update", "Updates a record", { parameters: ["dealStage"] }),
    tool("crm/fetch", "Fetches a record", { title: "Look up a contact" }),
    tool("billing/update", "Updates a record"),
  ]);
  assertEquals(names(index, "deal stage", 1), ["crm/update"]);
  assertEquals(names(index, "look up contact", 1), ["crm/fetch"]);
  assertEquals(names(index, "billing", 5), ["billing/update"]);
});

Deno.test("a request naming a server ranks that server's tools above near-duplicates elsewhere", () => {
  const index = new ToolSearchIndex([
    tool("github/create_issue", "Create a new issue in a GitHub repository"),
    tool("jira/create_issue", "Create a new Jira issue"),
    tool("linear/create_issue", "Create a new Linear issue"),
    tool("helpdesk/create_ticket", "Create a support ticket"),
  ]);
  assertEquals(names(index, "file a Linear ticket", 1), ["linear/create_issue"]);
  assertEquals(names(index, "open a GitHub issue", 1), ["github/create_issue"]);
  assertEquals(names(index, "open a support ticket", 1), ["helpdesk/create_ticket"]);
});

Deno.test("a word sharing a prefix of four or more letters counts, less than the word itself", () => {
  const index = new ToolSearchIndex([
    tool("a", "Searches repositories"),
    tool("b", "Lists repo tags"),
  ]);
  assertEquals(names(index, "repo"), ["b", "a"]);
  assertEquals(names(index, "repository"), ["a", "b"]);
});

Deno.test("search returns at most limit tools, ties in the index's order, and nothing unmatched", () => {
  const tools = ["cc", "aa", "bb"].map((name) => tool(name, "Same words"));
  const index = new ToolSearchIndex(tools);
  assertEquals(names(index, "same words"), ["cc", "aa", "bb"]);
  assertEquals(names(index, "same words", 2), ["cc", "aa"]);
  assertEquals(names(index, "unrelated"), []);
  assertEquals(names(index, "the of and"), [], "stop words alone match nothing");
  assertEquals(new ToolSearchIndex([]).search("anything", 5), []);
  // Scores are reset after each search: the same query gives the same answer again.
  assertEquals(names(index, "same words"), ["cc", "aa", "bb"]);
});

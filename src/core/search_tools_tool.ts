import * as z from "zod";
import { defineTool } from "./define_tool.ts";
import type { RoutedTool } from "./tool_source.ts";

/** The name of the tool search tool of a deferred tool set; reserved in such a set. */
export const SEARCH_TOOLS_NAME = "search_tools";

/** Most tools one search may ask for. */
export const SEARCH_TOOLS_MAX_LIMIT = 20;

/**
 * The `search_tools` tool of one deferred tool set. Its `find` searches only that set's
 * tools and loads what it returns; the arguments are checked here (a bad query or limit is an
 * `invalid_arguments` result, like any tool's).
 *
 * @param find Searches and loads, best first.
 * @returns The tool, read-only.
 */
export function searchToolsTool(
  find: (query: string, limit: number) => readonly RoutedTool[],
): RoutedTool {
  return defineTool({
    name: SEARCH_TOOLS_NAME,
    description:
      "Finds tools for a task and loads them: describe what you want to do in plain words " +
      '(such as "create an issue in Linear"). Returns {"tools":[{"name","description"}]}, best ' +
      "match first; the tools found are added to your tools and can be called next.",
    input: z.object({
      query: z.string().regex(/\S/, "must contain a word").max(1000).describe(
        "What the tool should do, in plain words",
      ),
      limit: z.number().int().min(1).max(SEARCH_TOOLS_MAX_LIMIT).optional().describe(
        "Most tools to return (default 5)",
      ),
    }),
    run: ({ query, limit }) => {
      const found = find(query, limit ?? 5);
      return JSON.stringify({
        tools: found.map((entry) => ({ name: entry.name, description: entry.description })),
      });
    },
    readOnly: true,
  });
}

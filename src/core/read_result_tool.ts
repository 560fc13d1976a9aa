import * as z from "zod";
import { defineTool } from "./define_tool.ts";
import { toolOutput } from "./tool_output.ts";
import type { RoutedTool } from "./tool_source.ts";
import type { ResultPage } from "./result_page.ts";

/** The name of the tool that reads results a budget cut; reserved when the router has budgets. */
export const READ_RESULT_NAME = "read_result";

/**
 * The `read_result` tool of one tool set. The first content block (and `structuredContent.text`
 * is not used: the page can be large) is the page's exact text; a second block says where the next
 * page starts when there is one.
 *
 * @param read Reads a page of a handle for this tool set's owner.
 * @returns The tool, read-only.
 */
export function readResultTool(
  read: (handle: string, range: { offset?: number; limit?: number }) => Promise<ResultPage>,
): RoutedTool {
  return defineTool({
    name: READ_RESULT_NAME,
    description:
      "Reads a tool result that was too long and was cut: pass the handle the cut result named, " +
      "and the offset in bytes the previous page named to go on. Returns the exact text of the " +
      "page.",
    input: z.object({
      handle: z.string().max(100).describe("The handle the cut result named"),
      offset: z.number().int().min(0).optional().describe(
        "Where to start, in bytes (default 0)",
      ),
      limit: z.number().int().min(1).optional().describe(
        "Most bytes to return (default and most: the page size the cut result named)",
      ),
    }),
    run: async ({ handle, offset, limit }) => {
      const page = await read(handle, { offset, limit });
      const content = [{ type: "text" as const, text: page.text }];
      if (page.nextOffset !== undefined) {
        content.push({
          type: "text",
          text: `[read_result: bytes ${page.offset} to ${
            page.offset + page.bytes
          } of ${page.totalBytes}; the next page starts at offset ${page.nextOffset}]`,
        });
      }
      const { text: _, ...where } = page;
      return toolOutput({ content, structuredContent: { handle, ...where } });
    },
    readOnly: true,
  });
}

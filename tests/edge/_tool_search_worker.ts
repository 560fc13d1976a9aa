/**
 * A test worker that searches a deferred tool set of 10,000 tools in workerd: `/build` makes the
 * set and its index (the first search), `/search?q=…&q=…` runs one `search_tools` call per `q`
 * and answers the names each found, `/noop` answers nothing (the round trip to subtract).
 *
 * @module
 */

import type { ToolSet } from "../../mod.ts";
import { searchCatalogSet, searchNames } from "./_tool_search_catalog.ts";

let toolSet: ToolSet | undefined;

export default {
  /**
   * Answers one step of the search scenario.
   *
   * @param request The request.
   * @returns The JSON answer.
   */
  async fetch(request: Request): Promise<Response> {
    try {
      const url = new URL(request.url);
      if (url.pathname === "/noop") return Response.json({});
      if (url.pathname === "/build" || toolSet === undefined) {
        toolSet = searchCatalogSet();
        await searchNames(toolSet, "warm up and build the index");
        if (url.pathname === "/build") return Response.json({ listed: toolSet.names });
      }
      // workerd's clock stands still while a request computes: the batch's round trip less an
      // empty one's, divided by its size, is the time of one search.
      const found: string[][] = [];
      for (const query of url.searchParams.getAll("q")) {
        found.push(await searchNames(toolSet, query));
      }
      return Response.json({ found });
    } catch (error) {
      return Response.json({ error: String(error) }, { status: 500 });
    }
  },
};

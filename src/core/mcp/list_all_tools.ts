import type { Client, McpTool } from "./mcp_sdk_types.ts";

/** What listing needs of a client: the SDK's `Client`, or the in-process client of a mount. */
export interface McpToolLister {
  /** Lists one page of tools. */
  listTools(
    params: { cursor?: string },
    options: { signal?: AbortSignal; timeout?: number },
  ): Promise<{ tools: McpTool[]; nextCursor?: string }>;
}

/**
 * The SDK client as a {@linkcode McpToolLister}: one `tools/list` request per page. (The client's
 * own `listTools()` without a cursor walks every page itself, with other bounds than the ones
 * here, and keeps the list in its cache.)
 *
 * @param client The connected SDK client.
 * @returns The lister.
 */
export function toolPagesOf(client: Client): McpToolLister {
  return {
    listTools: (params, options) =>
      client.request({ method: "tools/list", params: { ...params } }, options),
  };
}

/** Most pages read from one `tools/list`, against servers whose cursors never end. */
const MAX_PAGES = 1000;

/**
 * Lists every tool of a server, following `nextCursor` through all pages.
 *
 * Stops at a repeated cursor or after 1000 pages, so a faulty server cannot loop forever.
 *
 * @param client The connected client.
 * @param options The signal and deadline of each page request.
 * @returns All tools.
 */
export async function listAllTools(
  client: McpToolLister,
  options: { signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<McpTool[]> {
  const tools: McpTool[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.listTools(cursor === undefined ? {} : { cursor }, {
      signal: options.signal,
      timeout: options.timeoutMs,
    });
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (cursor === undefined || seen.has(cursor)) break;
    seen.add(cursor);
  }
  return tools;
}

import * as z from "zod";
import type { Client, McpTool } from "./mcp_sdk_types.ts";
import { MAX_REMOTE_DEPTH, nestedDeeperThan } from "./remote_depth.ts";

/** The `_meta` key of a stand-in for a tool nested too deep (see {@linkcode isTooDeepTool}). */
const TOO_DEEP = "toolroute/too_deep";

/**
 * A listed tool, checked at the top of each field only. (The SDK's own check of a 2025-era list
 * walks every property of a schema, a few stack frames a level: a few hundred levels overflowed
 * the smaller stack of a worker.) What is below the top is the guard's to walk, bounded.
 */
const LISTED_TOOL = z.looseObject({
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: z.looseObject({ type: z.literal("object") }),
  outputSchema: z.looseObject({}).optional(),
  annotations: z.looseObject({}).optional(),
  _meta: z.looseObject({}).optional(),
  icons: z.array(z.looseObject({ src: z.string() })).optional(),
});

/**
 * One page of `tools/list`: a tool nested deeper than {@linkcode MAX_REMOTE_DEPTH} levels is
 * replaced by a stand-in keeping its name, so nothing after it walks the hostile depth and the
 * tool is refused by name while the others are listed.
 */
const TOOLS_PAGE = z.looseObject({
  tools: z.array(z.unknown().transform(standInIfTooDeep).pipe(LISTED_TOOL)),
  nextCursor: z.string().optional(),
});

function standInIfTooDeep(tool: unknown): unknown {
  if (!nestedDeeperThan(tool, MAX_REMOTE_DEPTH + 1)) return tool;
  const { name } = tool as { name?: unknown };
  return { name, inputSchema: { type: "object" }, _meta: { [TOO_DEEP]: true } };
}

/**
 * Whether a listed tool is the stand-in for one nested deeper than {@linkcode MAX_REMOTE_DEPTH}
 * levels, to be refused. (A server that sends the mark itself only has its own tool refused.)
 *
 * @returns `true` for a stand-in.
 */
export function isTooDeepTool(tool: { _meta?: unknown }): boolean {
  const meta = tool._meta as Record<string, unknown> | undefined;
  return meta?.[TOO_DEEP] === true;
}

/** Most pages read from one `tools/list`, against servers whose cursors never end. */
const MAX_PAGES = 1000;

/**
 * Lists every tool of a server, one `tools/list` request per page following `nextCursor`, each
 * tool checked without recursing into its schemas and bounded in depth (see `TOOLS_PAGE`). (The
 * client's own `listTools()` without a cursor walks every page itself, with other bounds than
 * the ones here, and keeps the list in its cache.)
 *
 * Stops at a repeated cursor or after 1000 pages, so a faulty server cannot loop forever.
 *
 * @param options The signal and deadline of each page request.
 * @returns All tools.
 */
export async function listAllTools(
  client: Client,
  options: { signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<McpTool[]> {
  const tools: McpTool[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.request(
      { method: "tools/list", params: cursor === undefined ? {} : { cursor } },
      TOOLS_PAGE,
      { signal: options.signal, timeout: options.timeoutMs },
    ) as { tools: McpTool[]; nextCursor?: string };
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (cursor === undefined || seen.has(cursor)) break;
    seen.add(cursor);
  }
  return tools;
}

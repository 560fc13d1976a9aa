/**
 * Lists a serve client's tools until the wanted ones are there: `serve` answers `tools/list`
 * within its list bound (`limits.listWaitMs`) with the servers that are ready, and a server that
 * starts slowly (a cold `npx`, a sandbox's first start on a loaded machine) arrives later with a
 * `list_changed` notice. A client that calls at once would get `unknown_tool`.
 *
 * @module
 */

/** What the helper needs of an MCP client (the SDK's 1.x or 2.x `Client`). */
export interface ToolLister<T extends { name: string }> {
  listTools(): Promise<{ tools: T[] }>;
}

/**
 * The client's tools once every wanted name is listed, or the last list when `timeoutMs` passed
 * first (the caller's assertion then names what is missing).
 *
 * @param client The connected client.
 * @param wanted The tool names to wait for.
 * @param options `timeoutMs` (default 180 s: a cold `npx` download) and `pauseMs` (500 ms).
 * @returns The last list.
 */
export async function listToolsUntil<T extends { name: string }>(
  client: ToolLister<T>,
  wanted: readonly string[],
  options: { timeoutMs?: number; pauseMs?: number } = {},
): Promise<T[]> {
  const until = Date.now() + (options.timeoutMs ?? 180_000);
  let { tools } = await client.listTools();
  while (!wanted.every((name) => tools.some((tool) => tool.name === name))) {
    if (Date.now() > until) break;
    await new Promise((resolve) => setTimeout(resolve, options.pauseMs ?? 500));
    ({ tools } = await client.listTools());
  }
  return tools;
}

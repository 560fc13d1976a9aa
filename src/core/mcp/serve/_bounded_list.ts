/** Pages of one list asked of one server, at most. */
const MAX_PAGES = 10;
/** Entries of one list taken from one server, at most. */
const MAX_ENTRIES = 1000;
/**
 * Characters (as JSON) of one list taken from one server, at most: each page may be as large as
 * a response may be (`maxResponseBytes`), and ten of them kept for every request would let one
 * server hold the process's memory. The entries past it are left out.
 */
const MAX_LIST_CHARS = 1_048_576;

/**
 * One list of one server (resources, templates, prompts), page after page while it has a
 * `nextCursor`, bounded: at most 10 pages, 1000 entries and 1 MiB of entries as JSON. Entries
 * that are not objects are left out.
 */
export async function boundedList(
  key: string,
  page: (params: { cursor?: string }) => Promise<Record<string, unknown>>,
): Promise<Record<string, unknown>[]> {
  const entries: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  let chars = 0;
  for (let count = 0; count < MAX_PAGES && entries.length < MAX_ENTRIES; count++) {
    const answer = await page(cursor === undefined ? {} : { cursor });
    for (const item of Array.isArray(answer[key]) ? answer[key] as unknown[] : []) {
      if (item === null || typeof item !== "object") continue;
      chars += JSON.stringify(item).length;
      if (chars > MAX_LIST_CHARS) break;
      entries.push(item as Record<string, unknown>);
    }
    cursor = typeof answer.nextCursor === "string" && chars <= MAX_LIST_CHARS
      ? answer.nextCursor
      : undefined;
    if (cursor === undefined) break;
  }
  return entries.slice(0, MAX_ENTRIES);
}

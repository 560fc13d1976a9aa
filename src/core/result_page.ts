import { ToolError } from "./tool_error.ts";
import type { ResultStore, StoredResultInfo } from "./result_store.ts";

/** One page of a stored result. */
export interface ResultPage {
  /** The page's exact text. */
  text: string;
  /** Where it starts, in UTF-8 bytes. */
  offset: number;
  /** Its length in UTF-8 bytes. */
  bytes: number;
  /** The whole result's length in UTF-8 bytes. */
  totalBytes: number;
  /** Where the next page starts; absent at the end. */
  nextOffset?: number;
}

/**
 * Reads one page of a stored result, its ends on whole UTF-8 characters.
 *
 * @param page The `handle`, its stored `info`, and the `range` asked: `offset` (default 0) and
 *   `limit` (default and most: the stored page size) in bytes.
 * @returns The page; throws a `ToolError` (`invalid_arguments` for an offset inside a character
 *   or past the end, `unknown_tool` for a result gone meanwhile).
 */
export async function readResultPage(
  store: ResultStore,
  page: { handle: string; info: StoredResultInfo; range: { offset?: number; limit?: number } },
): Promise<ResultPage> {
  const { handle, info, range } = page;
  const offset = range.offset ?? 0;
  const limit = Math.min(range.limit ?? info.pageBytes, info.pageBytes);
  if (offset > info.bytes) {
    throw new ToolError(
      "invalid_arguments",
      `Offset ${offset} is past the end of the result (${info.bytes} bytes)`,
    );
  }
  // A few bytes more than the page, to see whether its end falls inside a character (and to
  // finish the character a page smaller than one starts).
  const last = Math.min(info.bytes, offset + limit + 4);
  const bytes = await store.read(handle, offset, last);
  if (bytes === undefined) {
    throw new ToolError("unknown_tool", `The stored result ${handle} is gone: it expired`);
  }
  if (bytes.length > 0 && isContinuation(bytes[0])) {
    throw new ToolError(
      "invalid_arguments",
      `Offset ${offset} is inside a character: pass the offset the previous page named`,
    );
  }
  let end = Math.min(limit, bytes.length);
  if (end < bytes.length) {
    while (end > 0 && isContinuation(bytes[end])) end--;
    // A page smaller than one character still returns that character.
    if (end === 0) {
      end = 1;
      while (end < bytes.length && isContinuation(bytes[end])) end++;
    }
  }
  const text = new TextDecoder().decode(bytes.subarray(0, end));
  const next = offset + end;
  return {
    text,
    offset,
    bytes: end,
    totalBytes: info.bytes,
    ...(next < info.bytes ? { nextOffset: next } : {}),
  };
}

function isContinuation(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

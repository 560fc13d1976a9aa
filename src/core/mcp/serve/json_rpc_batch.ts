/** What `serve` answers to a JSON-RPC batch (an array), which MCP 2025-06-18 removed. */
export const BATCH_MESSAGE =
  "JSON-RPC batches are not supported (MCP removed them in 2025-06-18); nothing was run, send one message per request";

/**
 * Whether a POST body is a JSON-RPC batch: its first character other than white space (or a
 * byte order mark) is `[`. Reads only as much of a clone of the body as that takes; the request
 * itself stays unread. A body of more than 1 MiB of white space counts as a batch (refused), so
 * padding cannot hide one.
 *
 * @param request The request.
 * @returns `true` for a batch.
 */
export async function isJsonRpcBatch(request: Request): Promise<boolean> {
  if (request.body === null) return false;
  const reader = request.clone().body!.getReader();
  try {
    for (let seen = 0; seen <= 1024 * 1024;) {
      const { done, value } = await reader.read();
      if (done) return false;
      seen += value.length;
      for (const byte of value) {
        // Space, tab, CR, LF, and the UTF-8 byte order mark (EF BB BF).
        if (byte === 0x20 || byte === 0x09 || byte === 0x0d || byte === 0x0a) continue;
        if (byte === 0xef || byte === 0xbb || byte === 0xbf) continue;
        return byte === 0x5b;
      }
    }
    return true;
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/**
 * The JSON-RPC error response to a batch: `-32600` (invalid request), HTTP 400.
 *
 * @returns The response.
 */
export function batchErrorResponse(): Response {
  return new Response(
    JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32600, message: BATCH_MESSAGE } }),
    { status: 400, headers: { "content-type": "application/json" } },
  );
}

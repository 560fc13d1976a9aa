/** What `serve` answers to a JSON-RPC batch (an array), which MCP 2025-06-18 removed. */
export const BATCH_MESSAGE =
  "JSON-RPC batches are not supported (MCP removed them in 2025-06-18); nothing was run, send one message per request";

/**
 * Whether a POST body is a JSON-RPC batch: its first character other than white space (or a
 * byte order mark) is `[`, however much padding comes first. Reads a clone of the body; the
 * request itself stays unread.
 */
export async function isJsonRpcBatch(request: Request): Promise<boolean> {
  if (request.body === null) return false;
  // The whole clone is read (the transport reads the body anyway): cancelling a tee'd branch
  // early stalled the other branch now and then in Deno 2.9.6, and the request never arrived.
  const bytes = new Uint8Array(await request.clone().arrayBuffer());
  for (const byte of bytes) {
    // Space, tab, CR, LF, and the UTF-8 byte order mark (EF BB BF).
    if (byte === 0x20 || byte === 0x09 || byte === 0x0d || byte === 0x0a) continue;
    if (byte === 0xef || byte === 0xbb || byte === 0xbf) continue;
    return byte === 0x5b;
  }
  return false;
}

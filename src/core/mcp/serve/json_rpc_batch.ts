/** What `serve` answers to a JSON-RPC batch (an array), which MCP 2025-06-18 removed. */
export const BATCH_MESSAGE =
  "JSON-RPC batches are not supported (MCP removed them in 2025-06-18); nothing was run, send one message per request";

/**
 * Whether a POST body is a JSON-RPC batch: its first character other than white space (or a
 * byte order mark) is `[`, however much padding comes first, parseable or not.
 */
export function isJsonRpcBatch(body: string): boolean {
  for (let i = 0; i < body.length; i++) {
    const char = body[i];
    if (char === " " || char === "\t" || char === "\r" || char === "\n" || char === "\uFEFF") {
      continue;
    }
    return char === "[";
  }
  return false;
}

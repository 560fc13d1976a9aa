/** A 2025-era `initialize` request message (id 1), as a raw client sends it, on HTTP or stdio. */
export const INITIALIZE_MESSAGE = Object.freeze({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "raw", version: "1" },
  },
});

/**
 * A 2025-era `initialize` POST to an MCP endpoint, as a raw client sends it: the request that
 * opens a session (or is refused before it, by a Host, Origin or token check).
 *
 * @param url The endpoint.
 * @param headers Headers to add (a token, a Host, an Origin).
 * @returns The request.
 */
export function initializeRequest(url: string, headers: Record<string, string> = {}): Request {
  return new Request(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify(INITIALIZE_MESSAGE),
  });
}

/**
 * A 2026-07-28 `tools/call` POST to an MCP endpoint, as a raw client sends it: no session, the
 * per-request envelope in `_meta` and the routing headers.
 *
 * @param url The endpoint.
 * @param call The bearer token, the call's params (`name`, `arguments`, a retry's
 *   `inputResponses` and `requestState`) and the client capabilities the envelope declares.
 * @returns The request.
 */
export function modernToolCallRequest(
  url: string,
  call: {
    token: string;
    params: { name: string } & Record<string, unknown>;
    capabilities?: Record<string, unknown>;
  },
): Request {
  return new Request(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${call.token}`,
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": call.params.name,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        ...call.params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": call.capabilities ?? {},
        },
      },
    }),
  });
}

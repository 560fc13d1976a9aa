/** A JSON-RPC message as a hostile loopback test server reads it. */
export interface HostileMessage {
  method?: string;
  id?: number;
  params?: { protocolVersion?: string };
}

/**
 * What a hostile loopback MCP server answers to play along with the handshake: `initialize` (a
 * session `s1`, tools only) and notifications (202); `undefined` for every other message, which
 * the attack answers.
 *
 * @param message The request's JSON body.
 * @returns The answer, or `undefined`.
 */
export function handshakeAnswer(message: HostileMessage): Response | undefined {
  if (message.method === "initialize") {
    return Response.json({
      jsonrpc: "2.0",
      id: message.id,
      result: {
        protocolVersion: message.params?.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "hostile", version: "1" },
      },
    }, { headers: { "mcp-session-id": "s1" } });
  }
  if (message.id === undefined) return new Response(null, { status: 202 });
  return undefined;
}

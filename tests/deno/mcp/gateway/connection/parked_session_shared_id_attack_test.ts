/**
 * A hostile 2025 server hands two users of one gateway the same session id, then both users'
 * connections are parked: each user goes on with the session on their own credentials only, and
 * ending the parked sessions (closing, as eviction and removal do) sends each `DELETE` with its
 * own user's credentials, never another's.
 *
 * @module
 */

import { assertEquals } from "@std/assert";
import { gatewaySettings } from "../../../../../src/core/mcp/gateway/gateway_settings.ts";
import { ServerConnection } from "../../../../../src/core/mcp/gateway/connection/server_connection.ts";

/** One request the server received. */
interface Seen {
  http: string;
  rpc?: string;
  session: string | null;
  authorization: string | null;
}

const SESSION = "one-session-for-everyone";

/** A minimal 2025 server (JSON answers) that gives every `initialize` the same session id. */
function sharedSessionServer() {
  const seen: Seen[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const body = request.method === "POST" ? await request.json() : undefined;
    const authorization = request.headers.get("authorization");
    seen.push({
      http: request.method,
      rpc: body?.method,
      session: request.headers.get("mcp-session-id"),
      authorization,
    });
    if (request.method !== "POST") return new Response(null, { status: 405 });
    const headers = { "content-type": "application/json", "mcp-session-id": SESSION };
    if (body.id === undefined) return new Response(null, { status: 202, headers });
    const answer = (result: unknown) =>
      Response.json({ jsonrpc: "2.0", id: body.id, result }, { headers });
    switch (body.method) {
      case "initialize":
        return answer({
          protocolVersion: "2025-06-18",
          capabilities: { tools: {} },
          serverInfo: { name: "shared", version: "1.0.0" },
        });
      case "tools/list":
        return answer({
          tools: [{ name: "whoami", inputSchema: { type: "object", properties: {} } }],
        });
      case "tools/call":
        // The caller's credential, reversed (a connection redacts its own header from results).
        return answer({
          content: [{ type: "text", text: [...authorization ?? ""].reverse().join("") }],
        });
      default:
        return Response.json({
          jsonrpc: "2.0",
          id: body.id,
          error: { code: -32601, message: "no" },
        }, { headers });
    }
  });
  const url = `http://127.0.0.1:${server.addr.port}/mcp`;
  return { server, seen, url };
}

Deno.test("two users handed one session id go on with it on their own credentials, and each DELETE carries its own", async () => {
  const { server, seen, url } = sharedSessionServer();
  const { settings } = gatewaySettings({}, () => {});
  const tokens = { ana: "Bearer ana-token-0123456789", bo: "Bearer bo-token-9876543210" };
  const connections = Object.entries(tokens).map(([userId, authorization]) =>
    new ServerConnection(Object.assign(Object.create(settings), {
      serverId: "crm",
      userId,
      config: { url, headers: { authorization } },
    }))
  );
  try {
    for (const connection of connections) await connection.listTools();
    // The attack ran: both users were handed the same session.
    const inits = seen.filter((s) => s.rpc === "tools/list");
    assertEquals(inits.map((s) => s.session), [SESSION, SESSION]);
    for (const connection of connections) {
      connection.park();
      assertEquals(connection.parkable, false, "parked");
    }
    // Both resume the one session id, each on its own credentials.
    for (const [index, connection] of connections.entries()) {
      const before = seen.length;
      const output = await connection.callTool("whoami", {}, {
        signal: AbortSignal.timeout(10_000),
      });
      const own = Object.values(tokens)[index];
      assertEquals(output.content, [{ type: "text", text: [...own].reverse().join("") }]);
      assertEquals(seen.slice(before).map((s) => [s.rpc ?? s.http, s.session, s.authorization]), [
        ["tools/call", SESSION, own],
      ]);
      connection.park();
    }
    // Ending the parked sessions: one DELETE per user, each with that user's own credentials.
    for (const [index, connection] of connections.entries()) {
      const before = seen.length;
      await connection.close();
      assertEquals(seen.slice(before).map((s) => [s.http, s.session, s.authorization]), [
        ["DELETE", SESSION, Object.values(tokens)[index]],
      ]);
    }
  } finally {
    for (const connection of connections) await connection.close();
    await server.shutdown();
  }
});

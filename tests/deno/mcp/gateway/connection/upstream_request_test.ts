import { assertEquals } from "@std/assert";
import { startMcpTestServer } from "../../../../_helpers/mcp_test_server.ts";
import { gatewaySettings } from "../../../../../src/core/mcp/gateway/gateway_settings.ts";
import { ServerConnection } from "../../../../../src/core/mcp/gateway/connection/server_connection.ts";

Deno.test("a resources request on a 2025 session the server expired is sent again on a new session", async () => {
  const methods: string[] = [];
  const server = await startMcpTestServer({
    tools: (mcp) => {
      mcp.registerResource("note", "note://1", {}, () => ({
        contents: [{ uri: "note://1", text: "the note" }],
      }));
    },
    intercept: async (request) => {
      if (request.method === "POST") methods.push((await request.clone().json()).method);
      return undefined;
    },
  });
  const { settings } = gatewaySettings({}, () => {});
  const connection = new ServerConnection(Object.assign(Object.create(settings), {
    serverId: "notes",
    userId: "ana",
    config: { url: server.url },
  }));
  const signal = AbortSignal.timeout(10_000);
  try {
    await connection.listTools();
    await server.expireSessions();
    const before = methods.length;
    const answer = await connection.request("resources/read", { uri: "note://1" }, signal);
    assertEquals(answer.contents, [{ uri: "note://1", text: "the note" }]);
    // The attack ran: the request first went out on the forgotten session (404, not run), then
    // once on a session initialized for it.
    assertEquals(methods.slice(before).filter((m) => m === "resources/read").length, 2);
    assertEquals(methods.slice(before).filter((m) => m === "initialize").length, 1);
    assertEquals(server.sessionsStarted, 2);
    assertEquals(connection.state, "ready");
  } finally {
    await connection.close();
    await server.close();
  }
});

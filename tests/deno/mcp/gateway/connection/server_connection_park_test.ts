import { assert, assertEquals } from "@std/assert";
import { startEraTestServer } from "../../../../_helpers/mcp_era_test_server.ts";
import { startMcpTestServer } from "../../../../_helpers/mcp_test_server.ts";
import { gatewaySettings } from "../../../../../src/core/mcp/gateway/gateway_settings.ts";
import type { McpGatewayEvent } from "../../../../../src/core/mcp/gateway/mcp_gateway_types.ts";
import type { McpServerConfig } from "../../../../../src/core/mcp/mcp_server_config.ts";
import { ServerConnection } from "../../../../../src/core/mcp/gateway/connection/server_connection.ts";
import { McpGateway } from "../../../../../src/core/mcp/mod.ts";
import { ToolRouter } from "../../../../../mod.ts";

/** A connection of one user, with a gateway's settings (one settings object for all of them). */
function userConnections(events: McpGatewayEvent[] = []) {
  const { settings } = gatewaySettings({}, (event) => events.push(event));
  return (userId: string, config: McpServerConfig) =>
    new ServerConnection(Object.assign(Object.create(settings), {
      serverId: "crm",
      userId,
      config,
    }));
}

const context = () => ({ signal: AbortSignal.timeout(10_000) });

Deno.test("a parked connection to a 2026-07-28 server calls again with no discover, no listing, its own credentials", async () => {
  const server = startEraTestServer({ legacy: "reject" });
  const events: McpGatewayEvent[] = [];
  const connect = userConnections(events);
  const ana = connect("ana", {
    url: server.url,
    headers: { authorization: "Bearer token-of-ana" },
  });
  const bo = connect("bo", { url: server.url, headers: { authorization: "Bearer token-of-bo" } });
  try {
    for (const c of [ana, bo]) assertEquals((await c.listTools()).length, 3);
    assert(ana.parkable && bo.parkable, "a ready, idle modern connection can let its client go");
    ana.park();
    bo.park();
    assertEquals([ana.parkable, ana.state, ana.tools.length], [false, "ready", 3]);
    const before = server.methods.length;
    const beforeEvents = events.length;
    const [a, b] = await Promise.all([
      ana.callTool("whoami", {}, context()),
      bo.callTool("whoami", {}, context()),
    ]);
    // Each call carried its own user's header (the connection's own comes back redacted).
    assertEquals([a.content, b.content], [
      [{ type: "text", text: "[redacted]" }],
      [{ type: "text", text: "[redacted]" }],
    ]);
    const carried = server.headersSeen.slice(-2).map((h) => h.get("authorization")).sort();
    assertEquals(carried, ["Bearer token-of-ana", "Bearer token-of-bo"]);
    // The attack on memory ran: both clients were really let go and built again, yet nothing but
    // the calls went over the wire, and no connect was announced.
    assertEquals(server.methods.slice(before), ["tools/call", "tools/call"]);
    assertEquals(events.slice(beforeEvents), []);
    assert(ana.parkable, "the rebuilt client can be let go again");
  } finally {
    await ana.close();
    await bo.close();
    await server.close();
  }
});

Deno.test("a connection to a 2025 server that holds its standing event stream is never parked", async () => {
  const server = await startMcpTestServer();
  const connection = userConnections()("ana", { url: server.url });
  try {
    await connection.listTools();
    assertEquals([connection.state, connection.parkable], ["ready", false]);
    const sessions = server.sessionsStarted;
    connection.park();
    await connection.callTool("echo", { text: "hi" }, context());
    assertEquals(server.sessionsStarted, sessions, "the same session serves the call");
  } finally {
    await connection.close();
    await server.close();
  }
});

Deno.test("the user pool parks idle per-user connections to a 2026-07-28 server, and their calls go on", async () => {
  const server = startEraTestServer({ legacy: "reject" });
  const events: McpGatewayEvent[] = [];
  const gateway = new McpGateway({ onEvent: (event) => events.push(event) });
  // Records which connections the pool really parked (a client let go), to prove it ran.
  const parked = new Set<ServerConnection>();
  const park = ServerConnection.prototype.park;
  ServerConnection.prototype.park = function (this: ServerConnection) {
    if (this.parkable) parked.add(this);
    park.call(this);
  };
  const router = new ToolRouter({ gateway });
  const users = ["ana", "bo", "cy"];
  for (const user of users) {
    gateway.addUserServer(user, "crm", {
      url: server.url,
      headers: { authorization: `Bearer token-of-${user}` },
    });
  }
  try {
    const sets = await Promise.all(
      users.map((userId) => router.expose({ mcpServers: ["crm"], userId })),
    );
    for (const set of sets) assertEquals(await set.invoke("whoami", {}), "[redacted]");
    const discovers = server.methods.filter((m) => m === "server/discover").length;
    // The pool parks a connection idle for a second; wait until each of the three was.
    while (parked.size < users.length) await new Promise((resolve) => setTimeout(resolve, 100));
    const connectedBefore = events.filter((e) => e.type === "connected").length;
    for (const set of sets) assertEquals(await set.invoke("whoami", {}), "[redacted]");
    assertEquals(server.methods.filter((m) => m === "server/discover").length, discovers);
    assertEquals(events.filter((e) => e.type === "connected").length, connectedBefore);
    assertEquals(gateway.status().map((s) => s.state), ["ready", "ready", "ready"]);
  } finally {
    ServerConnection.prototype.park = park;
    await router.close();
    await server.close();
  }
});

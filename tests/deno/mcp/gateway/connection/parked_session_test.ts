import { assert, assertEquals } from "@std/assert";
import { z } from "zod";
import { startEraTestServer } from "../../../../_helpers/mcp_era_test_server.ts";
import {
  startMcpTestServer,
  type TestServerOptions,
} from "../../../../_helpers/mcp_test_server.ts";
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

/** One request the server received: its HTTP method, JSON-RPC method and session headers. */
interface Seen {
  http: string;
  rpc?: string;
  session: string | null;
  version: string | null;
  authorization: string | null;
}

/**
 * A stateful 2025 test server that records every request and refuses the standing event stream
 * (GET, as a server without notifications to push does), so its connections can be parked.
 * `runs` counts the runs of its `bump` tool; `whoami` answers the session's own initialize
 * header reversed (so a connection's redaction of its own header leaves it readable).
 */
async function sessionServer(options: TestServerOptions = {}) {
  const seen: Seen[] = [];
  const counter = { runs: 0 };
  const server = await startMcpTestServer({
    ...options,
    tools: (mcp, ctx) => {
      mcp.registerTool("bump", { inputSchema: z.object({}) }, () => {
        counter.runs++;
        return { content: [{ type: "text", text: `run ${counter.runs}` }] };
      });
      mcp.registerTool("whoami", { inputSchema: z.object({}) }, () => ({
        content: [{
          type: "text",
          text: [...ctx.initHeaders.get("authorization") ?? ""].reverse().join(""),
        }],
      }));
    },
    intercept: async (request) => {
      const body = request.method === "POST" ? await request.clone().json() : undefined;
      const h = request.headers;
      seen.push({
        http: request.method,
        rpc: body?.method,
        session: h.get("mcp-session-id"),
        version: h.get("mcp-protocol-version"),
        authorization: h.get("authorization"),
      });
      return request.method === "GET" ? new Response(null, { status: 405 }) : undefined;
    },
  });
  return { server, seen, counter };
}

/** The JSON-RPC methods of what was seen from index `from` on. */
const rpcs = (seen: Seen[], from: number) => seen.slice(from).map((s) => s.rpc ?? s.http);

Deno.test("a parked connection to a 2025 server goes on with its session: no initialize, the same session id and protocol version", async () => {
  const { server, seen } = await sessionServer();
  const events: McpGatewayEvent[] = [];
  const connection = userConnections(events)("ana", { url: server.url });
  try {
    assertEquals((await connection.listTools()).length, 2);
    const { session, version } = seen.findLast((s) => s.rpc === "tools/list")!;
    assert(session !== null && version !== null, "a session with a negotiated version");
    assert(connection.parkable, "an idle 2025 connection with no event stream can be parked");
    connection.park();
    assertEquals([connection.parkable, connection.state, connection.tools.length], [
      false,
      "ready",
      2,
    ]);
    const before = seen.length;
    const beforeEvents = events.length;
    const output = await connection.callTool("bump", {}, context());
    assertEquals(output.content, [{ type: "text", text: "run 1" }]);
    // The attack on memory ran (the client was let go and built again) and nothing but the call
    // went over the wire: no initialize, no DELETE of the session when it was parked.
    assertEquals(rpcs(seen, before), ["tools/call"]);
    assertEquals([seen.at(-1)!.session, seen.at(-1)!.version], [session, version]);
    assertEquals(server.sessionsStarted, 1);
    assertEquals(events.slice(beforeEvents), []);
    assert(connection.parkable, "the rebuilt client can be parked again");
  } finally {
    await connection.close();
    await server.close();
  }
});

Deno.test("a 2025 session the server expired while parked is initialized again and the call runs once", async () => {
  const { server, seen, counter } = await sessionServer();
  const connection = userConnections()("ana", { url: server.url });
  try {
    await connection.listTools();
    connection.park();
    await server.expireSessions();
    const before = seen.length;
    const output = await connection.callTool("bump", {}, context());
    assertEquals(output.content, [{ type: "text", text: "run 1" }]);
    // The call first went out on the forgotten session (404, not run), then once on a new one.
    const after = rpcs(seen, before);
    assertEquals(after[0], "tools/call");
    assertEquals(after.filter((m) => m === "initialize").length, 1);
    assertEquals(after.at(-1), "tools/call");
    assertEquals([counter.runs, server.sessionsStarted], [1, 2]);
    assertEquals(connection.state, "ready");
  } finally {
    await connection.close();
    await server.close();
  }
});

Deno.test("two users' parked 2025 sessions never cross: each call goes on its own user's session", async () => {
  const { server, seen } = await sessionServer();
  const connect = userConnections();
  const ana = connect("ana", { url: server.url, headers: { authorization: "Bearer of-ana" } });
  const bo = connect("bo", { url: server.url, headers: { authorization: "Bearer of-bo" } });
  try {
    await Promise.all([ana.listTools(), bo.listTools()]);
    const sessionOf = (token: string) =>
      seen.find((s) => s.rpc === "notifications/initialized" && s.authorization === token)!
        .session;
    ana.park();
    bo.park();
    assert(!ana.parkable && !bo.parkable, "both were parked");
    const before = seen.length;
    const [a, b] = await Promise.all([
      ana.callTool("whoami", {}, context()),
      bo.callTool("whoami", {}, context()),
    ]);
    // Each session answers the header it was initialized with (reversed): its own user's.
    assertEquals(a.content, [{ type: "text", text: "ana-fo reraeB" }]);
    assertEquals(b.content, [{ type: "text", text: "ob-fo reraeB" }]);
    const calls = seen.slice(before).filter((s) => s.rpc === "tools/call");
    assertEquals(calls.length, 2);
    for (const call of calls) {
      assertEquals(call.session, sessionOf(call.authorization!), "own session, own credentials");
    }
    assertEquals(server.sessionsStarted, 2);
  } finally {
    await ana.close();
    await bo.close();
    await server.close();
  }
});

Deno.test("closing a parked 2025 connection ends its session on the server (DELETE)", async () => {
  const { server, seen } = await sessionServer();
  const connection = userConnections()("ana", { url: server.url });
  await connection.listTools();
  const session = seen.findLast((s) => s.rpc === "tools/list")!.session;
  connection.park();
  const before = seen.length;
  await connection.close();
  try {
    assertEquals(seen.slice(before).map((s) => [s.http, s.session]), [["DELETE", session]]);
    assertEquals(connection.state, "closed");
  } finally {
    await server.close();
  }
});

Deno.test("closing the gateway ends the sessions of users the pool parked", async () => {
  const { server, seen } = await sessionServer();
  const gateway = new McpGateway({});
  const parked = new Set<ServerConnection>();
  const park = ServerConnection.prototype.park;
  ServerConnection.prototype.park = function (this: ServerConnection) {
    if (this.parkable) parked.add(this);
    park.call(this);
  };
  const router = new ToolRouter({ gateway });
  const users = ["ana", "bo"];
  for (const user of users) {
    gateway.addUserServer(user, "crm", { url: server.url, headers: { authorization: user } });
  }
  try {
    for (const userId of users) {
      const set = await router.expose({ mcpServers: ["crm"], userId });
      assertEquals(await set.invoke("bump", {}), `run ${users.indexOf(userId) + 1}`);
    }
    // The pool parks a connection idle for a second; wait until both were.
    while (parked.size < users.length) await new Promise((resolve) => setTimeout(resolve, 100));
    const sessions = new Set(seen.filter((s) => s.rpc === "tools/call").map((s) => s.session));
    assertEquals(sessions.size, 2);
    const before = seen.length;
    await router.close();
    const deleted = seen.slice(before).filter((s) => s.http === "DELETE").map((s) => s.session);
    assertEquals(new Set(deleted), sessions);
  } finally {
    ServerConnection.prototype.park = park;
    await router.close();
    await server.close();
  }
});

Deno.test("a parked connection to a stateless 2025 server calls again with no initialize", async () => {
  const server = startEraTestServer({ legacy: "stateless" });
  const connection = userConnections()("ana", { url: server.url, protocol: "2025" });
  try {
    await connection.listTools();
    assert(connection.parkable, "no session, no event stream: parkable");
    connection.park();
    assert(!connection.parkable, "parked");
    const before = server.methods.length;
    const output = await connection.callTool("echo", { text: "hi" }, context());
    assertEquals(output.content, [{ type: "text", text: "hi" }]);
    assertEquals(server.methods.slice(before), ["tools/call"]);
    assert(
      server.headersSeen.at(-1)!.get("mcp-protocol-version")?.startsWith("2025"),
      "the negotiated 2025 version is sent",
    );
  } finally {
    await connection.close();
    await server.close();
  }
});

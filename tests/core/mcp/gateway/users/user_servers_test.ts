import { assertEquals, assertStrictEquals, assertThrows } from "@std/assert";
import { z } from "zod";
import type { McpServerConfig } from "../../../../../src/core/mcp/mcp_server_config.ts";
import type { McpTransport } from "../../../../../src/core/mcp/mcp_transport.ts";
import { InMemoryTransport, McpServer } from "@modelcontextprotocol/server";
import { ServerConnection } from "../../../../../src/core/mcp/gateway/connection/server_connection.ts";
import {
  UserServers,
  type UserServersOptions,
} from "../../../../../src/core/mcp/gateway/users/user_servers.ts";

const CONFIG: McpServerConfig = { url: "http://127.0.0.1:9/mcp", headers: { "x-user": "one" } };

/** A registry whose connections reach real in-memory SDK servers that echo who they serve. */
function registry(overrides: Partial<UserServersOptions> = {}) {
  const made: [string, string, McpServerConfig][] = [];
  const closed: string[] = [];
  const servers = new UserServers({
    idleMs: 60_000,
    maxConnections: 10,
    onClose: (userId, serverId, reason) => closed.push(`${userId}/${serverId}:${reason}`),
    connect: (serverId, userId, config) => {
      made.push([serverId, userId, config]);
      return new ServerConnection({
        serverId,
        userId,
        config,
        connectTimeoutMs: 1000,
        maxResponseBytes: 100_000,
        requestTimeoutMs: 1000,
        reconnect: { initialDelayMs: 10, maxDelayMs: 10, factor: 2, attempts: 1 },
        emit: () => {},
        transportFactory: async () => {
          const server = new McpServer({ name: `${serverId}@${userId}`, version: "1.0.0" });
          server.registerTool(
            "who",
            { inputSchema: z.object({ x: z.string().optional() }) },
            () => ({
              content: [{ type: "text", text: `${serverId}@${userId}` }],
            }),
          );
          const [client, serverSide] = InMemoryTransport.createLinkedPair();
          await server.connect(serverSide);
          return client as unknown as McpTransport;
        },
      });
    },
    ...overrides,
  });
  return { servers, made, closed };
}

const ctx = () => ({ signal: new AbortController().signal });

Deno.test("UserServers.add() registers per user and refuses a user's duplicate id", async () => {
  const { servers } = registry();
  servers.add("alice", "crm", CONFIG);
  servers.add("bob", "crm", CONFIG);
  servers.add("alice", "docs", CONFIG);
  const error = assertThrows(() => servers.add("alice", "crm", CONFIG), TypeError);
  assertEquals(
    error.message,
    'Cannot add MCP server "crm": user "alice" has a server with this id',
  );
  assertEquals([servers.ids("alice"), servers.ids("bob"), servers.ids("carol")], [
    ["crm", "docs"],
    ["crm"],
    [],
  ]);
  assertEquals([servers.ids("alice").includes("docs"), servers.ids("bob").includes("docs")], [
    true,
    false,
  ]);
  await servers.close();
});

Deno.test("UserServers.add() copies the config, so later changes to it are not seen", async () => {
  const { servers, made } = registry();
  const config = { url: "http://127.0.0.1:9/mcp", headers: { "x-user": "one" } };
  servers.add("alice", "crm", config);
  config.headers["x-user"] = "changed";
  config.url = "http://127.0.0.1:10/mcp";
  servers.connection("alice", "crm");
  assertEquals(made, [["crm", "alice", CONFIG]]);
  await servers.close();
});

Deno.test("UserServers.connection() reaches a server only through its own user", async () => {
  const { servers, made } = registry();
  servers.add("alice", "crm", CONFIG);
  assertEquals(servers.connection("bob", "crm"), undefined);
  assertEquals(servers.connection("alice", "docs"), undefined);
  assertEquals(made, []);
  const connection = servers.connection("alice", "crm")!;
  assertStrictEquals(servers.connection("alice", "crm"), connection);
  assertEquals(made.length, 1);
  assertEquals(textOf(await connection.callTool("who", {}, ctx())), "crm@alice");
  await servers.close();
});

Deno.test("UserServers.status() lists every user's servers, closed until connected", async () => {
  const { servers } = registry();
  servers.add("alice", "crm", CONFIG);
  servers.add("bob", "docs", CONFIG);
  await servers.connection("bob", "docs")!.listTools();
  assertEquals(servers.status(), [
    { id: "crm", userId: "alice", state: "closed", tools: 0, reconnectAttempts: 0 },
    {
      id: "docs",
      userId: "bob",
      state: "ready",
      tools: 1,
      reconnectAttempts: 0,
      transport: "custom",
      protocol: "2025-11-25",
    },
  ]);
  await servers.close();
  assertEquals(servers.status(), []);
});

Deno.test("UserServers.remove() forgets one server or all of a user's and closes their connections", async () => {
  const { servers, closed } = registry();
  servers.add("alice", "crm", CONFIG);
  servers.add("alice", "docs", CONFIG);
  servers.add("bob", "crm", CONFIG);
  const crm = servers.connection("alice", "crm")!;
  const docs = servers.connection("alice", "docs")!;
  const bobs = servers.connection("bob", "crm")!;
  await Promise.all([crm.listTools(), docs.listTools(), bobs.listTools()]);
  await servers.remove("alice", "nope");
  await servers.remove("carol");
  assertEquals([crm.state, docs.state, bobs.state], ["ready", "ready", "ready"]);
  await servers.remove("alice", "crm");
  assertEquals([servers.ids("alice").includes("crm"), crm.state, docs.state], [
    false,
    "closed",
    "ready",
  ]);
  assertEquals(servers.connection("alice", "crm"), undefined);
  await servers.remove("alice");
  assertEquals([servers.ids("alice"), docs.state, bobs.state], [[], "closed", "ready"]);
  assertEquals(servers.status().map((s) => `${s.userId}/${s.id}`), ["bob/crm"]);
  assertEquals(closed, [], "removal is not reported as idle or evicted");
  servers.add("alice", "crm", CONFIG);
  await servers.close();
  assertEquals(bobs.state, "closed");
});

Deno.test("UserServers evicts the least recently used connection past maxConnections", async () => {
  const { servers, closed } = registry({ maxConnections: 2 });
  for (const user of ["u1", "u2", "u3"]) {
    servers.add(user, "s", CONFIG);
    const connection = servers.connection(user, "s")!;
    assertEquals(textOf(await connection.callTool("who", {}, ctx())), `s@${user}`);
  }
  assertEquals(closed, ["u1/s:evicted"]);
  assertEquals(servers.status().map((s) => s.state), ["closed", "ready", "ready"]);
  assertEquals(servers.ids("u1").includes("s"), true, "eviction keeps the config");
  assertEquals(textOf(await servers.connection("u1", "s")!.callTool("who", {}, ctx())), "s@u1");
  await servers.close();
});

Deno.test("UserServers never evicts a connection while it is being opened, only once it is idle", async () => {
  const { servers, closed } = registry({ maxConnections: 2 });
  const listing = ["u1", "u2", "u3"].map((user) => {
    servers.add(user, "s", CONFIG);
    return servers.connection(user, "s")!.listTools();
  });
  const results = await Promise.allSettled(listing);
  assertEquals(results.map((r) => r.status), ["fulfilled", "fulfilled", "fulfilled"]);
  assertEquals(closed, [], "the limit is exceeded while every connection is in use");
  servers.add("u4", "s", CONFIG);
  servers.connection("u4", "s");
  assertEquals(closed, ["u1/s:evicted", "u2/s:evicted"], "the surplus goes once idle");
  await servers.close();
});

Deno.test("UserServers closes connections idle for idleMs and reconnects on next use", async () => {
  const { servers, closed, made } = registry({ idleMs: 30 });
  servers.add("alice", "crm", CONFIG);
  const first = servers.connection("alice", "crm")!;
  await first.listTools();
  await new Promise((resolve) => setTimeout(resolve, 120));
  assertEquals([closed, first.state], [["alice/crm:idle"], "closed"]);
  const second = servers.connection("alice", "crm")!;
  assertEquals(textOf(await second.callTool("who", {}, ctx())), "crm@alice");
  assertEquals(made.length, 2);
  await servers.close();
});

function textOf(output: { content: readonly unknown[] }): string {
  return output.content.map((block) => (block as { text: string }).text).join("\n\n");
}

Deno.test("UserServers.add() refuses an id that would take the pool key of the user's session of a global server", async () => {
  const { servers, made } = registry();
  const global: McpServerConfig = { url: "http://127.0.0.1:9/global", headers: { "x-user": "g" } };
  // The user's own entry named as the pool names the user's session of the global server "crm",
  // then used: its connection would be pooled under that key.
  const error = assertThrows(() => servers.add("alice", "\u0000global:crm", CONFIG), TypeError);
  assertEquals(error.message.includes("NUL"), true);
  assertEquals(servers.connection("alice", "\u0000global:crm"), undefined);
  // The user's session of the global server is the global server's, with the global config.
  const own = servers.globalFor("alice", "crm", global);
  assertEquals(made, [["crm", "alice", global]]);
  assertStrictEquals(servers.globalFor("alice", "crm", global), own);
  await servers.close();
});

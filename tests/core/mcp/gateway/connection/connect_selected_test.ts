import { assertEquals } from "@std/assert";
import { z } from "zod";
import {
  connectSelected,
  type SelectedServer,
} from "../../../../../src/core/mcp/gateway/connection/connect_selected.ts";
import type {
  McpTransport,
  McpTransportFactory,
} from "../../../../../src/core/mcp/mcp_transport.ts";
import { InMemoryTransport, McpServer } from "@modelcontextprotocol/server";
import { ServerConnection } from "../../../../../src/core/mcp/gateway/connection/server_connection.ts";

/** Real in-memory SDK servers; the ids in `down` refuse to connect. */
function factory(down: readonly string[], gate?: Promise<void>): McpTransportFactory {
  return async (_config, request) => {
    await gate;
    const who = `${request.serverId}@${request.userId ?? "global"}`;
    if (down.includes(who)) throw new Error(`${who} refused the connection`);
    const server = new McpServer({ name: who, version: "1.0.0" });
    server.registerTool("echo", { inputSchema: z.object({ text: z.string() }) }, ({ text }) => ({
      content: [{ type: "text", text }],
    }));
    const [client, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    return client as unknown as McpTransport;
  };
}

function select(
  ids: readonly (readonly [string, "user" | "global"])[],
  transportFactory: McpTransportFactory,
): SelectedServer[] {
  return ids.map(([id, tier]) => ({
    id,
    user: tier === "user",
    connection: new ServerConnection({
      serverId: id,
      ...(tier === "user" ? { userId: "alice" } : {}),
      config: { url: "http://127.0.0.1:9/mcp" },
      connectTimeoutMs: 1000,
      maxResponseBytes: 100_000,
      requestTimeoutMs: 1000,
      reconnect: { initialDelayMs: 10_000, maxDelayMs: 10_000, factor: 2, attempts: 1 },
      emit: () => {},
      transportFactory,
    }),
  }));
}

async function closeAll(selected: readonly SelectedServer[]): Promise<void> {
  for (const { connection } of selected) await connection.close();
}

Deno.test("connectSelected() connects every selected server and splits the ready ones by tier", async () => {
  const selected = select([["a", "user"], ["b", "global"], ["c", "global"]], factory([]));
  const connected = await connectSelected(selected);
  assertEquals(connected.user.map((s) => s.id), ["a"]);
  assertEquals(connected.global.map((s) => s.id), ["b", "c"]);
  assertEquals(connected.missing, []);
  assertEquals(connected.user[0], selected[0]);
  assertEquals(selected.map((s) => s.connection.state), ["ready", "ready", "ready"]);
  await closeAll(selected);
});

Deno.test("connectSelected() returns nothing for an empty selection", async () => {
  assertEquals(await connectSelected([]), { user: [], global: [], missing: [] });
});

Deno.test("connectSelected() reports a failed global server as missing and keeps the others", async () => {
  const selected = select([["down", "global"], ["up", "global"]], factory(["down@global"]));
  const connected = await connectSelected(selected);
  assertEquals(connected.global.map((s) => s.id), ["up"]);
  assertEquals(connected.missing, [{
    selection: "mcpServers",
    name: "down",
    reason: "the global MCP server is unavailable: down@global refused the connection",
  }]);
  await closeAll(selected);
});

Deno.test("connectSelected() never lets a failed user server fall back to the global one of its id", async () => {
  const selected = select(
    [["crm", "user"], ["crm", "global"], ["docs", "global"]],
    factory(["crm@alice"]),
  );
  const connected = await connectSelected(selected);
  assertEquals(connected.user, []);
  assertEquals(connected.global.map((s) => s.id), ["docs"]);
  assertEquals(connected.missing, [{
    selection: "mcpServers",
    name: "crm",
    reason: "the user's MCP server is unavailable: crm@alice refused the connection; " +
      "the global server of this id is not used instead",
  }]);
  assertEquals(selected[1].connection.state, "ready", "the global server itself is fine");
  await closeAll(selected);
});

Deno.test("connectSelected() says nothing about a global server when the failed user server has none", async () => {
  const selected = select([["mine", "user"], ["other", "global"]], factory(["mine@alice"]));
  const connected = await connectSelected(selected);
  assertEquals(connected.global.map((s) => s.id), ["other"]);
  assertEquals(
    connected.missing[0].reason,
    "the user's MCP server is unavailable: mine@alice refused the connection",
  );
  await closeAll(selected);
});

Deno.test("connectSelected() reports every server missing when the signal ends the wait", async () => {
  const gate = Promise.withResolvers<void>();
  const selected = select([["a", "user"], ["b", "global"]], factory([], gate.promise));
  const controller = new AbortController();
  const waiting = connectSelected(selected, { signal: controller.signal });
  controller.abort("the request ended");
  const connected = await waiting;
  assertEquals([connected.user, connected.global], [[], []]);
  assertEquals(connected.missing.map((m) => m.reason), [
    "the user's MCP server is unavailable: the request ended",
    "the global MCP server is unavailable: the request ended",
  ]);
  gate.resolve();
  await closeAll(selected);
});

import { assert, assertEquals } from "@std/assert";
import { z } from "zod";
import { startEraTestServer } from "../../../../_helpers/mcp_era_test_server.ts";
import { startMcpTestServer } from "../../../../_helpers/mcp_test_server.ts";
import { ServerConnection } from "../../../../../src/core/mcp/gateway/connection/server_connection.ts";
import { McpGateway, type McpGatewayEvent } from "../../../../../src/core/mcp/mod.ts";
import { ToolRouter } from "../../../../../mod.ts";

/** A loopback proxy whose upstream the test switches (a server that changes era at one URL). */
function switchingProxy(first: string) {
  let target = new URL(first);
  const http = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, (request) => {
    const url = new URL(request.url);
    const to = new URL(url.pathname + url.search, target);
    return fetch(new Request(to, request));
  });
  return {
    url: `http://127.0.0.1:${(http.addr as Deno.NetAddr).port}/mcp`,
    switchTo(url: string) {
      target = new URL(url);
    },
    close: () => http.shutdown(),
  };
}

/** Waits until the pool really parked the connection (its client let go). */
async function parkedOnce(parked: Set<ServerConnection>, count: number): Promise<void> {
  while (parked.size < count) await new Promise((resolve) => setTimeout(resolve, 100));
}

function recordParks() {
  const parked = new Set<ServerConnection>();
  const park = ServerConnection.prototype.park;
  ServerConnection.prototype.park = function (this: ServerConnection) {
    if (this.parkable) parked.add(this);
    park.call(this);
  };
  return { parked, restore: () => ServerConnection.prototype.park = park };
}

Deno.test("a server that changes era while a user is parked: the kept verdict is dropped, the call is run once", async () => {
  let modernRuns = 0;
  let legacyRuns = 0;
  const modern = startEraTestServer({
    legacy: "reject",
    tools: (server) =>
      server.registerTool("bump", { inputSchema: z.object({}) }, () => {
        modernRuns++;
        return { content: [{ type: "text", text: "modern" }] };
      }),
  });
  const legacy = await startMcpTestServer({
    tools: (server) =>
      server.registerTool("bump", { inputSchema: z.object({}) }, () => {
        legacyRuns++;
        return { content: [{ type: "text", text: "legacy" }] };
      }),
  });
  const proxy = switchingProxy(modern.url);
  const events: McpGatewayEvent[] = [];
  const gateway = new McpGateway({
    onEvent: (event) => events.push(event),
    reconnect: { initialDelayMs: 0, maxAttemptsPerCall: 3 },
  });
  const { parked, restore } = recordParks();
  const router = new ToolRouter({ gateway });
  gateway.addUserServer("ana", "crm", { url: proxy.url });
  try {
    const set = await router.expose({ mcpServers: ["crm"], userId: "ana" });
    assertEquals(await set.invoke("bump", {}), "modern");
    await parkedOnce(parked, 1);
    // The server is now a 2025 one at the same URL: the kept modern verdict no longer fits.
    proxy.switchTo(legacy.url);
    const connectedBefore = events.filter((e) => e.type === "connected").length;
    const afterFlip = await set.call("bump", {});
    // The attack ran: the call first went out on the client built from the stale verdict, was
    // refused unrun, and was then sent once on a client that asked the server again.
    assert(legacy.headersSeen.some((h) => h.get("mcp-protocol-version") === "2026-07-28"));
    assertEquals([afterFlip.isError, afterFlip.text], [false, "legacy"]);
    assertEquals([modernRuns, legacyRuns], [1, 1]);
    assertEquals(events.filter((e) => e.type === "connected").length, connectedBefore + 1);
    assertEquals(await set.invoke("bump", {}), "legacy");
    assertEquals([modernRuns, legacyRuns], [1, 2]);
    assertEquals(gateway.status()[0].state, "ready");
  } finally {
    restore();
    await router.close();
    await proxy.close();
    await modern.close();
    await legacy.close();
  }
});

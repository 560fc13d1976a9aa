import { assert, assertEquals } from "@std/assert";
import { z } from "zod";
import type { McpServer } from "@modelcontextprotocol/server";
import { EraVerdicts } from "../../../../../src/core/mcp/gateway/connection/era_verdicts.ts";
import { gatewaySettings } from "../../../../../src/core/mcp/gateway/gateway_settings.ts";
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

/** Tools whose answers name the caller by the token the HTTP request carried. */
function loginTools(server: McpServer, request: Request | undefined): void {
  const login = () => (request?.headers.get("authorization") ?? "").replace("Bearer token-of-", "");
  server.registerTool("who", { inputSchema: z.object({}) }, () => ({
    content: [{ type: "text", text: `user:${login()}` }],
  }));
  server.registerTool(
    "slow_who",
    { inputSchema: z.object({ ms: z.number() }) },
    ({ ms }) =>
      new Promise((resolve) =>
        setTimeout(() => resolve({ content: [{ type: "text", text: `user:${login()}` }] }), ms)
      ),
  );
}

Deno.test("parks racing long calls and many users' rebuilds at once: every call carries its own user's token", async () => {
  const server = startEraTestServer({ legacy: "reject", tools: loginTools });
  const gateway = new McpGateway({});
  // Records the parks the pool did, and each user's connection (to park it mid-call, as a timer
  // racing the call would).
  const parked = new Set<ServerConnection>();
  const byUser = new Map<string, ServerConnection>();
  const park = ServerConnection.prototype.park;
  const callTool = ServerConnection.prototype.callTool;
  ServerConnection.prototype.park = function (this: ServerConnection) {
    if (this.parkable) parked.add(this);
    park.call(this);
  };
  ServerConnection.prototype.callTool = function (this: ServerConnection, ...args) {
    byUser.set(this.settings.userId!, this);
    return callTool.apply(this, args);
  };
  const router = new ToolRouter({ gateway });
  const users = ["ana", "bo", "cy", "di", "ed", "flo"];
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
    // Half the users hold a call open past the park time; the others go idle and are parked.
    const slow = users.slice(0, 3).map((_, i) => sets[i].invoke("slow_who", { ms: 1_600 }));
    while (byUser.size < 3) await new Promise((resolve) => setTimeout(resolve, 10));
    // A park that lands during the calls lets nothing go (the attack ran: each was asked).
    for (const user of users.slice(0, 3)) {
      const busy = byUser.get(user)!;
      assert(busy.inFlight > 0, "the call is in flight");
      busy.park();
      assertEquals([busy.parkable, busy.state], [false, "ready"]);
    }
    for (let i = 3; i < users.length; i++) {
      assertEquals(await sets[i].invoke("who", {}), `user:${users[i]}`);
    }
    await parkedOnce(parked, 3);
    assertEquals(await Promise.all(slow), ["user:ana", "user:bo", "user:cy"]);
    // Every user at once, twice over: rebuilds of parked clients race each other and the calls.
    const answers = await Promise.all(
      [...sets, ...sets].map((set) => set.invoke("who", {})),
    );
    assertEquals(answers, [...users, ...users].map((user) => `user:${user}`));
    // The attack ran: parks were asked while calls were in flight, and parked clients were built
    // again (each user's requests after the park carried that user's own token and no other).
    assert([...parked].length >= 3, "idle users were parked");
    const tokens = server.headersSeen.map((h) => h.get("authorization"));
    for (const user of users) assert(tokens.includes(`Bearer token-of-${user}`));
    assertEquals(tokens.filter((t) => !users.some((u) => t === `Bearer token-of-${u}`)), []);
  } finally {
    ServerConnection.prototype.park = park;
    ServerConnection.prototype.callTool = callTool;
    await router.close();
    await server.close();
  }
});

Deno.test("the era verdict bound used as an eviction weapon only costs a discover: the rebuilt client is still the user's", async () => {
  const server = startEraTestServer({ legacy: "reject", tools: loginTools });
  const { settings } = gatewaySettings({}, () => {});
  // A small bound, so that a hostile user's many servers push the other user's verdict out.
  const eras = new EraVerdicts({ maxEntries: 2 });
  const connect = (userId: string, serverId: string) =>
    new ServerConnection(Object.assign(Object.create(settings), {
      serverId,
      userId,
      config: { url: server.url, headers: { authorization: `Bearer token-of-${userId}` } },
      eras,
    }));
  const victim = connect("bo", "crm");
  const hostile = ["a1", "a2", "a3"].map((id) => connect("ana", id));
  try {
    await victim.listTools();
    victim.park();
    for (const c of hostile) await c.listTools();
    // The attack ran: the victim's verdict is gone.
    assertEquals(
      eras.get({ serverId: "crm", userId: "bo", target: `auto ${server.url}` }),
      undefined,
    );
    const discovers = server.methods.filter((m) => m === "server/discover").length;
    const out = await victim.callTool("who", {}, { signal: AbortSignal.timeout(10_000) });
    assertEquals(out.content, [{ type: "text", text: "user:bo" }]);
    // One discover more, with the victim's own token; no connect under another user's verdict.
    assertEquals(server.methods.filter((m) => m === "server/discover").length, discovers + 1);
    assertEquals(server.headersSeen.at(-1)?.get("authorization"), "Bearer token-of-bo");
  } finally {
    for (const c of [victim, ...hostile]) await c.close();
    await server.close();
  }
});

Deno.test("a parked user's server removed, or given new credentials: no call goes out with the old token", async () => {
  const server = startEraTestServer({ legacy: "reject", tools: loginTools });
  const gateway = new McpGateway({});
  const { parked, restore } = recordParks();
  const router = new ToolRouter({ gateway });
  const add = (user: string, token: string) =>
    gateway.addUserServer(user, "crm", {
      url: server.url,
      headers: { authorization: `Bearer token-of-${token}` },
    });
  add("ana", "ana");
  add("bo", "bo");
  try {
    const ana = await router.expose({ mcpServers: ["crm"], userId: "ana" });
    const bo = await router.expose({ mcpServers: ["crm"], userId: "bo" });
    assertEquals(await ana.invoke("who", {}), "user:ana");
    assertEquals(await bo.invoke("who", {}), "user:bo");
    await parkedOnce(parked, 2);
    // Ana's credentials change while she is parked: her old tool set's next call uses the new ones.
    await gateway.removeUserServer("ana", "crm");
    add("ana", "ana-rotated");
    const seen = server.headersSeen.length;
    assertEquals(await ana.invoke("who", {}), "user:ana-rotated");
    // Ana is removed while parked: her old tool set reaches nothing, Bo's goes on as Bo.
    await gateway.clearUser("ana");
    const removed = await ana.call("who", {});
    assert(removed.isError, removed.text);
    assertEquals(await bo.invoke("who", {}), "user:bo");
    // The attack ran (calls were made after each change), and the old token never went out again.
    const after = server.headersSeen.slice(seen).map((h) => h.get("authorization"));
    assertEquals(after.filter((t) => t === "Bearer token-of-ana"), []);
    assert(after.includes("Bearer token-of-ana-rotated") && after.includes("Bearer token-of-bo"));
  } finally {
    restore();
    await router.close();
    await server.close();
  }
});

Deno.test("a parked connection's rebuilt client keeps the call's deadline and cancellation", async () => {
  const server = startEraTestServer({ legacy: "reject", tools: loginTools });
  const { settings } = gatewaySettings({}, () => {});
  const connection = new ServerConnection(Object.assign(Object.create(settings), {
    serverId: "crm",
    userId: "ana",
    config: { url: server.url, headers: { authorization: "Bearer token-of-ana" } },
  }));
  try {
    await connection.listTools();
    // Each call below goes out on a client built again from the kept verdict (the attack ran).
    connection.park();
    const timedOut = connection.callTool("slow_who", { ms: 5_000 }, {
      signal: new AbortController().signal,
      timeoutMs: 100,
    });
    const error = await timedOut.then(() => undefined, (e) => e);
    assertEquals(error?.code, "timeout");
    connection.park();
    const controller = new AbortController();
    const cancelled = connection.callTool("slow_who", { ms: 5_000 }, {
      signal: controller.signal,
    });
    while (server.methods.filter((m) => m === "tools/call").length < 2) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    controller.abort();
    const aborted = await cancelled.then(() => undefined, (e) => e);
    assertEquals(aborted?.code, "aborted");
    assertEquals(server.methods.filter((m) => m === "server/discover").length, 1);
  } finally {
    await connection.close();
    await server.close();
  }
});

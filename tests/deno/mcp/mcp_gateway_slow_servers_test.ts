import { assert, assertEquals, assertMatch } from "@std/assert";
import { ToolRouter } from "../../../mod.ts";
import type { McpGatewayEvent } from "../../../src/core/mcp/mod.ts";
import { createDenoGateway } from "../../../src/deno/mcp/deno_gateway.ts";
import { startMcpTestServer } from "../../_helpers/mcp_test_server.ts";

/** A promise and the function that settles it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => open = resolve);
  return { opened, open };
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}

Deno.test("a tool list answers within listWaitMs with the ready servers; a silent HTTP and a silent stdio server are reported as starting", async () => {
  const held = gate();
  let reached = 0;
  const fast = await startMcpTestServer();
  const holding = await startMcpTestServer({
    intercept: async () => {
      reached++;
      await held.opened; // Holds every request until the test ends.
      return new Response(null, { status: 503 });
    },
  });
  // Reads stdin and never answers a word.
  const quiet = { command: "/bin/sh", args: ["-c", "cat > /dev/null"] };
  const gateway = createDenoGateway({
    servers: { fast: { url: fast.url }, holding: { url: holding.url }, quiet },
    listWaitMs: 300,
    connectTimeoutMs: 3000, // Only so that close() does not wait long for the silent ones.
  });
  const router = new ToolRouter({ gateway });
  try {
    // The ready server is connected first (its own first connect may take longer than the bound
    // on a loaded machine); the bound is about the servers that never answer.
    await router.expose({ mcpServers: ["fast"] });
    await until(() => gateway.status().find((s) => s.id === "fast")?.state === "ready");
    const toolSet = await router
      .expose({ mcpServers: ["fast", "holding", "quiet"] });
    assert(reached > 0, "the holding server received the connect request");
    assert(toolSet.has("echo"), toolSet.names.join());
    assertEquals(toolSet.missing.map((entry) => entry.name).sort(), ["holding", "quiet"]);
    for (const entry of toolSet.missing) assertMatch(entry.reason, /is starting/);
    const states = Object.fromEntries(gateway.status().map((s) => [s.id, s.state]));
    assertEquals(states.fast, "ready");
    // Connecting (still starting); never ready, as neither ever answers.
    assert(states.holding !== "ready" && states.quiet !== "ready", JSON.stringify(states));
  } finally {
    held.open();
    await gateway.close();
    await fast.close();
    await holding.close();
  }
});

Deno.test("a server that is ready after the list was answered is announced (tools_changed) and listed next time", async () => {
  const held = gate();
  const slow = await startMcpTestServer({
    intercept: async () => {
      await held.opened;
      return undefined;
    },
  });
  const events: McpGatewayEvent[] = [];
  const order: string[] = [];
  const gateway = createDenoGateway({
    servers: { slow: { url: slow.url } },
    listWaitMs: 100,
    onEvent: (event) => {
      events.push(event);
      if (event.type === "tools_changed") order.push("announced");
    },
  });
  const router = new ToolRouter({ gateway });
  try {
    const first = await router.expose({ mcpServers: ["slow"] });
    order.push("first list");
    assertEquals(first.names, []);
    assertMatch(first.missing[0].reason, /starting/);
    held.open();
    await until(() => events.some((e) => e.type === "tools_changed"));
    assertEquals(order, ["first list", "announced"]);
    const changed = events.find((e) => e.type === "tools_changed")!;
    assertEquals([changed.serverId, changed.tools! > 0], ["slow", true]);
    const second = await router.expose({ mcpServers: ["slow"] });
    assert(second.has("echo"), second.names.join());
    assertEquals(second.missing, []);
  } finally {
    held.open();
    await gateway.close();
    await slow.close();
  }
});

Deno.test("connectTimeoutMs in a server's config lets a slow starter connect; the gateway's deadline fails with a message that names the server and the setting", async () => {
  // Each server holds its first request (the connect) longer than the gateway's deadline.
  const slowServer = () => {
    let first = true;
    return startMcpTestServer({
      intercept: async () => {
        if (!first) return undefined;
        first = false;
        await new Promise((resolve) => setTimeout(resolve, 1500));
        return undefined;
      },
    });
  };
  const short = await slowServer();
  const long = await slowServer();
  const gateway = createDenoGateway({
    servers: { short: { url: short.url }, long: { url: long.url, connectTimeoutMs: 20_000 } },
    connectTimeoutMs: 500,
    listWaitMs: Infinity,
  });
  try {
    const toolSet = await new ToolRouter({ gateway }).expose({ mcpServers: ["short", "long"] });
    assert(toolSet.has("echo"), toolSet.names.join());
    assertEquals(toolSet.missing.map((entry) => entry.name), ["short"]);
    assertMatch(
      toolSet.missing[0].reason,
      /Connecting to MCP server "short" did not finish within 500 ms; if it is only slow to start, raise "connectTimeoutMs"/,
    );
  } finally {
    await gateway.close();
    await short.close();
    await long.close();
  }
});

Deno.test("a tool of a server that went down mid-session answers upstream_unavailable naming the server, not unknown tool", async () => {
  const server = await startMcpTestServer();
  const gateway = createDenoGateway({
    servers: { main: { url: server.url } },
    reconnect: { maxAttemptsPerCall: 1 },
  });
  const router = new ToolRouter({ gateway });
  try {
    const before = await router.expose({ mcpServers: ["main"] });
    assertEquals(await before.invoke("echo", { text: "up" }), "up");
    await server.close();
    const failed = await before.call("echo", { text: "down" });
    assertEquals(failed.code, "upstream_unavailable", "the server is really down");
    // The next request's tool set (serve exposes one per request) no longer lists the tool.
    const after = await router.expose({ mcpServers: ["main"] });
    assertEquals(after.has("echo"), false);
    const result = await after.call("echo", { text: "down" });
    assertEquals(result.code, "upstream_unavailable");
    assertMatch(
      result.text,
      /Tool "echo" belongs to the MCP server "main", which is not available/,
    );
  } finally {
    await gateway.close();
    await server.close();
  }
});

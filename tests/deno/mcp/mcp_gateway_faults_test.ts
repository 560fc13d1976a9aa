import { assert, assertEquals, assertLess, assertMatch } from "@std/assert";
import { ToolRouter } from "../../../mod.ts";
import { McpGateway } from "../../../src/core/mcp/mod.ts";
import { spawnMcpTestServer, startMcpTestServer } from "../../_helpers/mcp_test_server.ts";
import { z } from "zod";

async function freePort(): Promise<string> {
  const server = await startMcpTestServer();
  const url = server.url;
  await server.close();
  return url;
}

for (const mode of ["sse", "json"]) {
  Deno.test(`a server that crashes mid-call ends the call with upstream_unavailable at once (${mode})`, async () => {
    const server = await spawnMcpTestServer(mode === "json" ? ["--json"] : []);
    const router = new ToolRouter({
      gateway: new McpGateway({ servers: { main: { url: server.url } }, requestTimeoutMs: 30_000 }),
    });
    try {
      const toolSet = await router.expose({ mcpServers: ["main"] });
      const started = performance.now();
      const call = toolSet.call("sleep", { ms: 20_000 });
      setTimeout(() => server.kill(), 300);
      const result = await call;
      assertEquals(result.code, "upstream_unavailable", result.text);
      assertLess(performance.now() - started, 5_000);
    } finally {
      await router.close();
      await server.kill();
    }
  });
}

Deno.test("a hanging server times out at the deadline while other servers answer", async () => {
  const server = await startMcpTestServer();
  const other = await startMcpTestServer();
  const router = new ToolRouter({
    gateway: new McpGateway({
      servers: { slow: { url: server.url }, fast: { url: other.url } },
      requestTimeoutMs: 400,
    }),
  });
  try {
    const toolSet = await router.expose({ mcpServers: ["slow", "fast"] });
    const started = performance.now();
    const hanging = toolSet.call("slow_sleep", { ms: 10_000 });
    assertEquals(await toolSet.invoke("fast_echo", { text: "still here" }), "still here");
    assertLess(performance.now() - started, 300);
    const result = await hanging;
    assertEquals(result.code, "timeout", result.text);
    const elapsed = performance.now() - started;
    assert(elapsed >= 390 && elapsed < 3_000, `timed out after ${elapsed} ms`);
    const perCall = await toolSet.call("slow_sleep", { ms: 10_000 }, { timeoutMs: 150 });
    assertEquals(perCall.code, "timeout");
    assertEquals(await toolSet.invoke("slow_echo", { text: "after" }), "after");
  } finally {
    await router.close();
    await server.close();
    await other.close();
  }
});

Deno.test("malformed JSON-RPC answers fail the call at once and the connection stays usable", async () => {
  const server = await startMcpTestServer({
    intercept: async (request) => {
      if (request.method !== "POST") return undefined;
      const body = await request.clone().text();
      if (body.includes('"bad_json"')) {
        return new Response("{ this is not json", {
          headers: { "content-type": "application/json" },
        });
      }
      if (body.includes('"bad_sse"')) {
        return new Response('event: message\ndata: {"jsonrpc":"2.0","nonsense":true}\n\n', {
          headers: { "content-type": "text/event-stream" },
        });
      }
      return undefined;
    },
    tools: (mcp) => {
      for (const name of ["bad_json", "bad_sse", "fine"]) {
        mcp.registerTool(name, { inputSchema: z.object({}) }, () => ({
          content: [{ type: "text", text: "fine" }],
        }));
      }
    },
  });
  const router = new ToolRouter({
    gateway: new McpGateway({ servers: { main: { url: server.url } }, requestTimeoutMs: 10_000 }),
  });
  try {
    const toolSet = await router.expose({ mcpServers: ["main"] });
    const started = performance.now();
    const json = await toolSet.call("bad_json", {});
    assert(json.isError);
    assertMatch(json.text, /unavailable|malformed|failed/);
    const sse = await toolSet.call("bad_sse", {});
    assert(sse.isError);
    assertMatch(sse.text, /malformed/);
    assertLess(performance.now() - started, 5_000);
    assertEquals(await toolSet.invoke("fine", {}), "fine");
  } finally {
    await router.close();
    await server.close();
  }
});

Deno.test("a 50 MB result is cut to maxResultChars with a handle, and a body over maxResponseBytes fails", async () => {
  const server = await startMcpTestServer();
  const router = new ToolRouter({
    gateway: new McpGateway({ servers: { main: { url: server.url } }, maxResultChars: 1000 }),
  });
  const small = new ToolRouter({
    gateway: new McpGateway({
      servers: { main: { url: server.url } },
      maxResponseBytes: 1_000_000,
    }),
  });
  try {
    const toolSet = await router.expose({ mcpServers: ["main"] });
    const text = await toolSet.invoke("big", { chars: 50_000_000 });
    assertLess(text.length, 1001);
    assertMatch(text, /The whole result is 50000000 bytes and is kept: call read_result/);
    const limited = await small.expose({ mcpServers: ["main"] });
    const cut = await limited.call("big", { chars: 2_000_000 });
    assertEquals(cut.code, "tool_error", cut.text);
    assertMatch(cut.text, /larger than 1000000 bytes/);
    assertEquals(await limited.invoke("echo", { text: "ok" }), "ok");
  } finally {
    await router.close();
    await small.close();
    await server.close();
  }
});

Deno.test("a server down at start is reported missing and the others still work", async () => {
  const server = await startMcpTestServer();
  const down = await freePort();
  // A backoff no loaded machine outlasts between the two exposures (the default's second passed
  // once, and the second exposure tried again instead of naming the next attempt).
  const gateway = new McpGateway({
    servers: { up: { url: server.url }, down: { url: down } },
    reconnect: { initialDelayMs: 60_000 },
  });
  const router = new ToolRouter({ gateway });
  try {
    const toolSet = await router.expose({ mcpServers: ["up", "down"] });
    assertEquals(toolSet.missing.length, 1);
    assertEquals(toolSet.missing[0].name, "down");
    assertEquals(toolSet.missing[0].selection, "mcpServers");
    assertMatch(toolSet.missing[0].reason, /unavailable: Cannot connect/);
    assertEquals(await toolSet.invoke("echo", { text: "up" }), "up");
    const down2 = gateway.status().find((s) => s.id === "down")!;
    assertEquals(down2.state, "failed");
    assertEquals(down2.reconnectAttempts, 1);
    const again = await router.expose({ mcpServers: ["down"] });
    assertMatch(again.missing[0].reason, /next attempt in/);
  } finally {
    await router.close();
    await server.close();
  }
});

Deno.test("after a server restart the next call reconnects with backoff and succeeds", async () => {
  const server = await startMcpTestServer();
  const events: string[] = [];
  const gateway = new McpGateway({
    servers: { main: { url: server.url } },
    reconnect: { initialDelayMs: 100, factor: 2 },
    onEvent: (event) => events.push(event.type),
  });
  const router = new ToolRouter({ gateway });
  try {
    const toolSet = await router.expose({ mcpServers: ["main"] });
    assertEquals(await toolSet.invoke("echo", { text: "one" }), "one");
    await server.close();
    setTimeout(() => server.restart(), 400);
    assertEquals(await toolSet.invoke("echo", { text: "two" }), "two");
    assertEquals(server.sessionsStarted, 2);
    assert(events.includes("connect_failed"), events.join());
    assertEquals(gateway.status()[0].state, "ready");
    assertEquals(gateway.status()[0].reconnectAttempts, 0);
  } finally {
    await router.close();
    await server.close();
  }
});

Deno.test("an expired HTTP session is re-initialised once and the unsent call is sent again", async () => {
  let runs = 0;
  const server = await startMcpTestServer({
    tools: (mcp) =>
      mcp.registerTool("count", { inputSchema: z.object({}) }, () => ({
        content: [{ type: "text", text: String(++runs) }],
      })),
  });
  const router = new ToolRouter({
    gateway: new McpGateway({ servers: { main: { url: server.url } } }),
  });
  try {
    const toolSet = await router.expose({ mcpServers: ["main"] });
    assertEquals(await toolSet.invoke("count", {}), "1");
    await server.expireSessions();
    assertEquals(await toolSet.invoke("count", {}), "2");
    assertEquals(runs, 2);
    assertEquals(server.sessionsStarted, 2);
  } finally {
    await router.close();
    await server.close();
  }
});

Deno.test("the exposed list follows notifications/tools/list_changed", async () => {
  const server = await startMcpTestServer();
  let changed!: () => void;
  const refreshed = new Promise<void>((resolve) => changed = resolve);
  const router = new ToolRouter({
    gateway: new McpGateway({
      servers: { main: { url: server.url } },
      onEvent: (event) => event.type === "tools_changed" && changed(),
    }),
  });
  try {
    assertEquals((await router.expose({ mcpServers: ["main"] })).has("shout"), false);
    await server.changeTools((mcp) =>
      mcp.registerTool("shout", { inputSchema: z.object({ text: z.string() }) }, ({ text }) => ({
        content: [{ type: "text", text: text.toUpperCase() }],
      }))
    );
    await refreshed;
    const toolSet = await router.expose({ mcpServers: ["main"] });
    assertEquals(await toolSet.invoke("shout", { text: "hey" }), "HEY");
  } finally {
    await router.close();
    await server.close();
  }
});

Deno.test("a call whose event stream closes after a priming event is resumed, not failed", async () => {
  let pendingId: unknown;
  let resumedWith: string | null = null;
  const server = await startMcpTestServer({
    intercept: async (request) => {
      if (request.method === "POST") {
        const body = await request.clone().json();
        if (body.method !== "tools/call" || body.params.name !== "echo") return undefined;
        pendingId = body.id;
        // A priming event with an id and a retry delay, then the stream closes with no answer.
        return new Response("id: ev-1\nretry: 100\ndata: \n\n", {
          headers: {
            "content-type": "text/event-stream",
            "mcp-session-id": request.headers.get("mcp-session-id")!,
          },
        });
      }
      if (request.method === "GET" && request.headers.get("last-event-id") !== null) {
        resumedWith = request.headers.get("last-event-id");
        const message = {
          jsonrpc: "2.0",
          id: pendingId,
          result: { content: [{ type: "text", text: "resumed" }] },
        };
        return new Response(`id: ev-2\ndata: ${JSON.stringify(message)}\n\n`, {
          headers: { "content-type": "text/event-stream" },
        });
      }
      return undefined;
    },
  });
  const router = new ToolRouter({
    gateway: new McpGateway({ servers: { main: { url: server.url } }, requestTimeoutMs: 5_000 }),
  });
  try {
    const toolSet = await router.expose({ mcpServers: ["main"] });
    assertEquals(await toolSet.invoke("echo", { text: "x" }), "resumed");
    assertEquals(resumedWith, "ev-1");
  } finally {
    await router.close();
    await server.close();
  }
});

Deno.test("a server that accepts but never answers initialize is missing after connectTimeoutMs", async () => {
  let release!: () => void;
  const released = new Promise<Response>((resolve) =>
    release = () => resolve(new Response(null, { status: 503 }))
  );
  const server = await startMcpTestServer({ intercept: () => released });
  const other = await startMcpTestServer();
  const router = new ToolRouter({
    gateway: new McpGateway({
      servers: { stuck: { url: server.url }, fine: { url: other.url } },
      connectTimeoutMs: 300,
    }),
  });
  try {
    const started = performance.now();
    const toolSet = await router.expose({ mcpServers: ["stuck", "fine"] });
    const elapsed = performance.now() - started;
    assert(elapsed >= 290 && elapsed < 3_000, `took ${elapsed} ms`);
    assertEquals(toolSet.missing.map((m) => m.name), ["stuck"]);
    assertMatch(toolSet.missing[0].reason, /did not finish within 300 ms/);
    assertEquals(await toolSet.invoke("echo", { text: "ok" }), "ok");
  } finally {
    release();
    await router.close();
    await server.close();
    await other.close();
  }
});

import { assert, assertEquals, assertRejects } from "@std/assert";
import { ToolRouter } from "../../../mod.ts";
import { McpGateway } from "../../../src/core/mcp/mod.ts";
import { startEraTestServer } from "../../_helpers/mcp_era_test_server.ts";
import { startMcpTestServer } from "../../_helpers/mcp_test_server.ts";
import { z } from "zod";

Deno.test("a modern-only server (2026-07-28, no 2025 serving) is listed and called in auto", async () => {
  const server = startEraTestServer({ legacy: "reject" });
  const gateway = new McpGateway({ servers: { modern: { url: server.url } } });
  const router = new ToolRouter({ gateway });
  try {
    const tools = await router.expose({ mcpServers: ["modern"] });
    assertEquals(tools.missing, []);
    assertEquals(await tools.invoke("echo", { text: "hi" }), "hi");
    const [status] = gateway.status();
    assertEquals(status.protocol, "2026-07-28");
    assert(!server.methods.includes("initialize"), server.methods.join());
  } finally {
    await router.close();
    await server.close();
  }
});

Deno.test("a dual-era server gets server/discover and no initialize, and no session", async () => {
  const server = startEraTestServer({ legacy: "stateless" });
  const gateway = new McpGateway({ servers: { dual: { url: server.url } } });
  const router = new ToolRouter({ gateway });
  try {
    const tools = await router.expose({ mcpServers: ["dual"] });
    assertEquals(await tools.invoke("echo", { text: "both" }), "both");
    assertEquals(server.methods[0], "server/discover");
    assertEquals(server.methods.filter((m) => m === "initialize"), []);
    assert(server.methods.includes("tools/call"));
    assertEquals(server.headersSeen.filter((h) => h.has("mcp-session-id")), []);
  } finally {
    await router.close();
    await server.close();
  }
});

Deno.test("a 2025-only server still works in auto: the probe falls back to initialize", async () => {
  const server = await startMcpTestServer();
  const gateway = new McpGateway({ servers: { old: { url: server.url } } });
  const router = new ToolRouter({ gateway });
  try {
    const tools = await router.expose({ mcpServers: ["old"] });
    assertEquals(tools.missing, []);
    assertEquals(await tools.invoke("echo", { text: "old" }), "old");
    const [status] = gateway.status();
    assert(status.protocol !== undefined && status.protocol < "2026", status.protocol);
    assert(server.sessionsStarted >= 1);
  } finally {
    await router.close();
    await server.close();
  }
});

Deno.test('protocol "2025" sends initialize and no server/discover, even to a dual-era server', async () => {
  const server = startEraTestServer({ legacy: "stateless" });
  const gateway = new McpGateway({
    servers: { dual: { url: server.url, protocol: "2025" } },
  });
  const router = new ToolRouter({ gateway });
  try {
    const tools = await router.expose({ mcpServers: ["dual"] });
    assertEquals(await tools.invoke("echo", { text: "old way" }), "old way");
    assertEquals(server.methods[0], "initialize");
    assert(!server.methods.includes("server/discover"));
  } finally {
    await router.close();
    await server.close();
  }
});

Deno.test('protocol "2026-07-28" fails on a 2025-only server and says so in missing', async () => {
  const server = await startMcpTestServer();
  const gateway = new McpGateway({
    servers: { old: { url: server.url, protocol: "2026-07-28" } },
    reconnect: { maxAttemptsPerCall: 1 },
  });
  const router = new ToolRouter({ gateway });
  try {
    const tools = await router.expose({ mcpServers: ["old"] });
    assertEquals(tools.missing.length, 1);
    assert(/unavailable/.test(tools.missing[0].reason), tools.missing[0].reason);
    assertEquals(server.sessionsStarted, 0);
  } finally {
    await router.close();
    await server.close();
  }
});

Deno.test("the discover verdict is kept: a reconnect sends no second server/discover", async () => {
  const server = startEraTestServer({ legacy: "stateless" });
  const events: string[] = [];
  const gateway = new McpGateway({
    userIdleMs: 1,
    onEvent: (event) =>
      events.push(event.type === "closed" ? `closed ${event.reason}` : event.type),
  });
  gateway.addUserServer("ana", "dual", { url: server.url });
  const router = new ToolRouter({ gateway });
  try {
    const first = await router.expose({ mcpServers: ["dual"], userId: "ana" });
    assertEquals(await first.invoke("echo", { text: "1" }), "1");
    // The idle connection closes (a removed and re-added server is discovered again: its new
    // config may carry other credentials).
    for (let i = 0; i < 500 && !events.includes("closed idle"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert(events.includes("closed idle"), events.join());
    const second = await router.expose({ mcpServers: ["dual"], userId: "ana" });
    assertEquals(await second.invoke("echo", { text: "2" }), "2");
    // Connected again (more than once: the idle connection closes between listing and calling).
    assert(events.filter((e) => e === "connected").length >= 2, events.join());
    assertEquals(server.methods.filter((m) => m === "server/discover").length, 1);
    assertEquals(server.methods.filter((m) => m === "initialize"), []);
  } finally {
    await router.close();
    await server.close();
  }
});

Deno.test("bad protocol settings are refused when the server is added", () => {
  const gateway = new McpGateway();
  try {
    let thrown: unknown;
    try {
      gateway.addServer("x", { url: "http://127.0.0.1:1/mcp", protocol: "2024" as "2025" });
    } catch (error) {
      thrown = error;
    }
    assert(thrown instanceof TypeError && /"protocol" must be/.test(thrown.message));
  } finally {
    void gateway.close();
  }
});

Deno.test("three users calling one modern-only per-user server at once each see only their own answers", async () => {
  const server = startEraTestServer({ legacy: "reject" });
  const gateway = new McpGateway();
  const users = ["ana", "bo", "cy"];
  for (const user of users) {
    gateway.addUserServer(user, "crm", {
      url: server.url,
      headers: { Authorization: `Bearer token-of-${user}` },
    });
  }
  const router = new ToolRouter({ gateway });
  try {
    const sets = await Promise.all(
      users.map((userId) => router.expose({ mcpServers: ["crm"], userId })),
    );
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => i % 3).map(async (u) => ({
        user: users[u],
        text: await sets[u].invoke("whoami", {}),
      })),
    );
    // whoami echoes the Authorization the call carried: the connection's own comes back redacted,
    // another user's would come back as it is.
    assertEquals(answers.filter((a) => a.text !== "[redacted]"), []);
    assertEquals(answers.length, 30);
    const carried = server.headersSeen.map((h) => h.get("authorization")).filter((a) => a !== null);
    for (const user of users) assert(carried.includes(`Bearer token-of-${user}`));
    assertEquals(
      gateway.status().map((s) => s.protocol),
      ["2026-07-28", "2026-07-28", "2026-07-28"],
    );
  } finally {
    await router.close();
    await server.close();
  }
});

void assertRejects;

Deno.test("in the 2026-07-28 era a call keeps its deadline, its cancellation and its progress", async () => {
  // What the server's tool saw end its work: a server without sessions learns of a cancel only
  // from the request's own POST being aborted.
  const stopped: string[] = [];
  const server = startEraTestServer({
    legacy: "reject",
    tools: (mcp) => {
      mcp.registerTool(
        "slow",
        { inputSchema: z.object({ ms: z.number() }) },
        async ({ ms }, ctx) => {
          const token = ctx.mcpReq._meta?.progressToken;
          if (token !== undefined) {
            await ctx.mcpReq.notify({
              method: "notifications/progress",
              params: { progressToken: token, progress: 1, total: 2, message: "half" },
            });
          }
          let finished = false;
          await new Promise<void>((resolve) => {
            const timer = setTimeout(() => {
              finished = true;
              resolve();
            }, ms);
            // Deno's server also aborts a request's signal once its answer is sent: only an abort
            // before the work finished counts.
            ctx.mcpReq.signal.addEventListener("abort", () => {
              if (finished) return;
              clearTimeout(timer);
              stopped.push("aborted");
              resolve();
            });
          });
          return { content: [{ type: "text", text: "done" }] };
        },
      );
    },
  });
  const gateway = new McpGateway({ servers: { modern: { url: server.url } } });
  const router = new ToolRouter({ gateway });
  try {
    const tools = await router.expose({ mcpServers: ["modern"] });
    const late = await tools.call("slow", { ms: 5_000 }, { timeoutMs: 200 });
    assertEquals(late.code, "timeout", late.text);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const cancelled = await tools.call("slow", { ms: 5_000 }, { signal: controller.signal });
    assertEquals(cancelled.code, "aborted", cancelled.text);
    const heard: string[] = [];
    const done = await tools.call("slow", { ms: 10 }, {
      onProgress: (progress) => heard.push(progress.message ?? ""),
    });
    assertEquals(done.text, "done");
    assertEquals(heard, ["half"]);
    assertEquals(gateway.status()[0].protocol, "2026-07-28");
    assert(!server.methods.includes("initialize"));
    // The deadline and the cancel each ended the server's work (the raw SDK client does the same).
    assertEquals(stopped, ["aborted", "aborted"]);
  } finally {
    await router.close();
    await server.close();
  }
});

Deno.test("in the 2026-07-28 era a parameter a tool marks for a header is mirrored (Mcp-Param-*)", async () => {
  const server = startEraTestServer({
    legacy: "reject",
    tools: (mcp) => {
      mcp.registerTool("forecast", {
        inputSchema: z.object({ region: z.string().meta({ "x-mcp-header": "Region" }) }),
      }, ({ region }) => ({ content: [{ type: "text", text: `sunny in ${region}` }] }));
    },
  });
  const gateway = new McpGateway({ servers: { modern: { url: server.url } } });
  const router = new ToolRouter({ gateway });
  try {
    const tools = await router.expose({ mcpServers: ["modern"] });
    assertEquals(await tools.invoke("forecast", { region: "north" }), "sunny in north");
    assertEquals(
      server.headersSeen.map((h) => h.get("mcp-param-region")).filter((v) => v !== null),
      ["north"],
    );
  } finally {
    await router.close();
    await server.close();
  }
});

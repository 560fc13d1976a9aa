import { assert, assertEquals, assertMatch, assertRejects, assertThrows } from "@std/assert";
import { z } from "zod";
import { ToolRouter } from "../../../../mod.ts";
import type { McpJsonSchemaValidation } from "../../../../src/core/mcp/mod.ts";
import {
  McpGateway,
  type McpGatewayEvent,
  type McpTransport,
} from "../../../../src/core/mcp/mod.ts";
import { Server } from "../../../../src/core/mcp/mcp_sdk.ts";
import { InMemoryTransport, McpServer } from "@modelcontextprotocol/server";

/** A transport factory that connects each attempt to a fresh in-memory server. */
function memory(make: (serverId: string, userId?: string) => McpServer | Server) {
  let live = 0;
  let maxLive = 0;
  let made = 0;
  const factory = async (_config: unknown, request: { serverId: string; userId?: string }) => {
    const [client, server] = InMemoryTransport.createLinkedPair();
    await make(request.serverId, request.userId).connect(server);
    made++;
    maxLive = Math.max(maxLive, ++live);
    const close = client.close.bind(client);
    let closed = false;
    client.close = async () => {
      if (!closed) live--;
      closed = true;
      await close();
    };
    return client as unknown as McpTransport;
  };
  return { factory, stats: () => ({ live, maxLive, made }) };
}

function echoServer(name = "mem"): McpServer {
  const server = new McpServer({ name, version: "1.0.0" });
  server.registerTool("echo", { inputSchema: z.object({ text: z.string() }) }, ({ text }) => ({
    content: [{ type: "text", text: `${name}: ${text}` }],
  }));
  return server;
}

const URL_CONFIG = { url: "http://127.0.0.1:1/mcp" };

Deno.test("McpGateway connects lazily through a transport factory and routes calls", async () => {
  const { factory, stats } = memory(() => echoServer());
  await using gateway = new McpGateway({ servers: { mem: URL_CONFIG }, transportFactory: factory });
  assertEquals(gateway.status()[0].state, "closed");
  assertEquals(stats().made, 0);
  const router = new ToolRouter({ gateway });
  const toolSet = await router.expose({ mcpServers: ["mem"] });
  assertEquals(await toolSet.invoke("echo", { text: "hi" }), "mem: hi");
  assertEquals(gateway.status()[0], {
    id: "mem",
    state: "ready",
    tools: 1,
    reconnectAttempts: 0,
    transport: "custom",
    protocol: "2025-11-25",
  });
  await gateway.close();
  assertEquals(stats().live, 0);
});

Deno.test("McpGateway reads every page of a tool list", async () => {
  const { factory } = memory(() => {
    const server = new Server({ name: "paged", version: "1.0.0" }, {
      capabilities: { tools: {} },
    });
    const all = Array.from({ length: 7 }, (_, i) => ({
      name: `t${i}`,
      inputSchema: { type: "object" as const },
    }));
    server.setRequestHandler("tools/list", (request) => {
      const start = Number(request.params?.cursor ?? 0);
      const next = start + 3 < all.length ? String(start + 3) : undefined;
      return { tools: all.slice(start, start + 3), nextCursor: next };
    });
    server.setRequestHandler("tools/call", (request) => ({
      content: [{ type: "text", text: request.params.name }],
    }));
    return server;
  });
  await using gateway = new McpGateway({ servers: { p: URL_CONFIG }, transportFactory: factory });
  const toolSet = await new ToolRouter({ gateway }).expose({ mcpServers: ["p"] });
  assertEquals(toolSet.names.length, 7);
  assertEquals(await toolSet.invoke("t6", {}), "t6");
});

Deno.test("McpGateway qualifies same-tier clashes and lets user tools shadow global ones", async () => {
  const { factory } = memory((serverId) => echoServer(serverId));
  await using gateway = new McpGateway({
    servers: { one: URL_CONFIG, two: URL_CONFIG },
    transportFactory: factory,
  });
  gateway.addUserServer("alice", "mine", URL_CONFIG);
  const router = new ToolRouter({ gateway });
  const global = await router.expose({ mcpServers: ["one", "two"] });
  assertEquals([...global.names], ["one_echo", "two_echo"]);
  assertEquals(await global.invoke("two_echo", { text: "x" }), "two: x");
  // A name depends on the configured servers, not on the selection: "one" still shares "echo".
  const both = await router.expose({ mcpServers: ["one", "mine"], userId: "alice" });
  assertEquals([...both.names], ["echo", "one_echo"]);
  await gateway.removeServer("two");
  const alice = await router.expose({ mcpServers: ["one", "mine"], userId: "alice" });
  assertEquals(await alice.invoke("echo", { text: "x" }), "mine: x");
  assertEquals(alice.shadowed, [{ name: "echo", winner: "user_mcp", hidden: ["global_mcp"] }]);
});

Deno.test("McpGateway refuses stdio configs without a transport factory, pointing to ./deno", () => {
  const gateway = new McpGateway();
  const error = assertThrows(
    () => gateway.addServer("files", { command: "deno", args: ["run", "server.ts"] }),
    TypeError,
  );
  assertMatch(error.message, /@toolroute\/toolroute\/deno/);
  assertThrows(() => new McpGateway({ requestTimeoutMs: 0 }), RangeError, "requestTimeoutMs");
  assertThrows(() => gateway.addServer("bad", { url: "ftp://x" }), TypeError, "http:");
  gateway.addServer("dup", URL_CONFIG);
  assertThrows(() => gateway.addServer("dup", URL_CONFIG), TypeError, "a global server");
});

// Progress comes every 200 ms against a 700 ms deadline: a loaded machine may delay a timer by a few
// hundred milliseconds, and the test must still tell an extended deadline from a plain one.
const PROGRESS_EVERY_MS = 200;

Deno.test("McpGateway lets progress extend a call's deadline up to the hard maximum", async () => {
  const { factory } = memory(() => {
    const server = new McpServer({ name: "slow", version: "1.0.0" });
    server.registerTool(
      "work",
      { inputSchema: z.object({ steps: z.number() }) },
      async ({ steps }, extra) => {
        for (let i = 1; i <= steps; i++) {
          await new Promise((resolve) => setTimeout(resolve, PROGRESS_EVERY_MS));
          await extra.mcpReq.notify({
            method: "notifications/progress",
            params: {
              progressToken: extra.mcpReq._meta!.progressToken!,
              progress: i,
              total: steps,
            },
          });
        }
        return { content: [{ type: "text", text: "done" }] };
      },
    );
    return server;
  });
  await using gateway = new McpGateway({
    servers: { s: URL_CONFIG },
    transportFactory: factory,
    requestTimeoutMs: 700,
    maxTotalTimeoutMs: 2500,
  });
  const toolSet = await new ToolRouter({ gateway }).expose({ mcpServers: ["s"] });
  const seen: number[] = [];
  assertEquals(
    await toolSet.invoke("work", { steps: 6 }, { onProgress: (p) => seen.push(p.progress) }),
    "done",
  );
  assertEquals(seen, [1, 2, 3, 4, 5, 6]);
  const tooLong = await toolSet.call("work", { steps: 30 });
  assertEquals(tooLong.code, "timeout");
});

/** A server whose `work {steps}` reports progress every 200 ms when given a token; logs tokens. */
function progressServer(tokens: unknown[]): McpServer {
  const server = new McpServer({ name: "progress", version: "1.0.0" });
  server.registerTool(
    "work",
    { inputSchema: z.object({ steps: z.number() }) },
    async ({ steps }, extra) => {
      const token = extra.mcpReq._meta?.progressToken;
      tokens.push(token);
      for (let i = 1; i <= steps; i++) {
        await new Promise((resolve) => setTimeout(resolve, PROGRESS_EVERY_MS));
        if (token !== undefined) {
          await extra.mcpReq.notify({
            method: "notifications/progress",
            params: { progressToken: token, progress: i, total: steps },
          });
        }
      }
      return { content: [{ type: "text", text: "done" }] };
    },
  );
  return server;
}

Deno.test("McpGateway sends a progress token only where it can be of use", async () => {
  const tokens: unknown[] = [];
  const { factory } = memory(() => progressServer(tokens));
  await using gateway = new McpGateway({
    servers: { s: URL_CONFIG },
    transportFactory: factory,
    requestTimeoutMs: 150,
    maxTotalTimeoutMs: 600,
  });
  const toolSet = await new ToolRouter({ gateway }).expose({ mcpServers: ["s"] });
  // The first call of a tool carries one (a probe); it reported nothing: later calls do not.
  assertEquals(await toolSet.invoke("work", { steps: 0 }), "done");
  assertEquals(await toolSet.invoke("work", { steps: 0 }), "done");
  // A listener always gets one; a call with its own deadline without a listener never does.
  assertEquals(await toolSet.invoke("work", { steps: 0 }, { onProgress: () => {} }), "done");
  assertEquals(await toolSet.invoke("work", { steps: 0 }, { timeoutMs: 1000 }), "done");
  assertEquals(tokens.map((token) => token !== undefined), [true, false, true, false]);
});

Deno.test("McpGateway lets progress extend the later calls of a tool that reported it, and only those", async () => {
  const tokens: unknown[] = [];
  const { factory } = memory(() => progressServer(tokens));
  const options = { transportFactory: factory, requestTimeoutMs: 700, maxTotalTimeoutMs: 2500 };
  await using gateway = new McpGateway({ ...options, servers: { s: URL_CONFIG } });
  const toolSet = await new ToolRouter({ gateway }).expose({ mcpServers: ["s"] });
  // Its first call was short and reported nothing: a long call without a listener carries no
  // token, so the server cannot report progress and the plain 700 ms deadline holds.
  assertEquals(await toolSet.invoke("work", { steps: 0 }), "done");
  assertEquals((await toolSet.call("work", { steps: 6 })).code, "timeout");
  // A listened call reports progress (1.2 s, extended); from then on every call carries a token.
  assertEquals(await toolSet.invoke("work", { steps: 6 }, { onProgress: () => {} }), "done");
  assertEquals(await toolSet.invoke("work", { steps: 6 }), "done");
  assertEquals((await toolSet.call("work", { steps: 30 })).code, "timeout");
  assertEquals(tokens.map((token) => token !== undefined), [true, false, true, true, true]);

  // With `progressTokens: "always"`, every call carries one, from the first.
  const always: unknown[] = [];
  const { factory: alwaysFactory } = memory(() => progressServer(always));
  await using eager = new McpGateway({
    ...options,
    transportFactory: alwaysFactory,
    servers: { s: URL_CONFIG },
    progressTokens: "always",
  });
  const eagerSet = await new ToolRouter({ gateway: eager }).expose({ mcpServers: ["s"] });
  assertEquals(await eagerSet.invoke("work", { steps: 0 }), "done");
  assertEquals(await eagerSet.invoke("work", { steps: 6 }), "done");
  assertEquals(always.map((token) => token !== undefined), [true, true]);
  assertThrows(
    () => new McpGateway({ progressTokens: "never" as "auto" }),
    RangeError,
    "progressTokens",
  );
});

Deno.test("McpGateway closes idle and least recently used user connections", async () => {
  const { factory, stats } = memory((serverId, userId) => echoServer(`${serverId}@${userId}`));
  const events: McpGatewayEvent[] = [];
  await using gateway = new McpGateway({
    transportFactory: factory,
    maxUserConnections: 2,
    userIdleMs: 60_000,
    onEvent: (event) => event.type === "closed" && events.push(event),
  });
  const router = new ToolRouter({ gateway });
  for (const user of ["u1", "u2", "u3"]) {
    gateway.addUserServer(user, "s", URL_CONFIG);
    const toolSet = await router.expose({ mcpServers: ["s"], userId: user });
    assertEquals(await toolSet.invoke("echo", { text: "x" }), `s@${user}: x`);
  }
  assertEquals(events.map((e) => [e.userId, e.reason]), [["u1", "evicted"]]);
  assertEquals(gateway.status().map((s) => s.state), ["closed", "ready", "ready"]);
  const again = await router.expose({ mcpServers: ["s"], userId: "u1" });
  assertEquals(await again.invoke("echo", { text: "back" }), "s@u1: back");
  await gateway.close();
  assertEquals(stats().live, 0);
});

Deno.test("McpGateway reaches all of a user's servers in one expose beyond maxUserConnections", async () => {
  const { factory } = memory((serverId) => echoServer(serverId));
  await using gateway = new McpGateway({ maxUserConnections: 2, transportFactory: factory });
  for (const id of ["a", "b", "c"]) gateway.addUserServer("alice", id, URL_CONFIG);
  const toolSet = await new ToolRouter({ gateway }).expose({
    mcpServers: ["a", "b", "c"],
    userId: "alice",
  });
  assertEquals(toolSet.missing, []);
  assertEquals([...toolSet.names], ["a_echo", "b_echo", "c_echo"]);
  assertEquals(await toolSet.invoke("a_echo", { text: "hi" }), "a: hi");
});

Deno.test("McpGateway user tools refuse another user's context and removed servers", async () => {
  const { factory } = memory(() => echoServer());
  await using gateway = new McpGateway({ servers: { g: URL_CONFIG }, transportFactory: factory });
  gateway.addUserServer("alice", "a", URL_CONFIG);
  const resolved = await gateway.resolve({ serverIds: ["a", "g"], userId: "alice" });
  const mine = resolved.user[0];
  await assertRejects(
    async () => await mine.execute({ text: "x" }, { signal: new AbortController().signal }),
    Error,
    "another user",
  );
  const router = new ToolRouter({ gateway });
  const toolSet = await router.expose({ mcpServers: ["g"] });
  await gateway.removeServer("g");
  const result = await toolSet.call("echo", { text: "x" });
  assertEquals(result.code, "upstream_unavailable");
  assertMatch(result.text, /was removed/);
});

Deno.test("McpGateway respawns a lost transport on the next call, never two at once", async () => {
  const servers: McpServer[] = [];
  const { factory, stats } = memory(() => {
    const server = echoServer();
    servers.push(server);
    return server;
  });
  await using gateway = new McpGateway({
    servers: { s: URL_CONFIG },
    transportFactory: factory,
    reconnect: { initialDelayMs: 10 },
  });
  const toolSet = await new ToolRouter({ gateway }).expose({ mcpServers: ["s"] });
  assertEquals(await toolSet.invoke("echo", { text: "1" }), "mem: 1");
  await servers[0].close();
  assertEquals(gateway.status()[0].state, "failed");
  assertEquals(await toolSet.invoke("echo", { text: "2" }), "mem: 2");
  assertEquals(stats().made, 2);
  assertEquals(stats().maxLive, 1);
});

Deno.test("McpGateway hands its JSON Schema validator to the SDK client", async () => {
  const schemas: unknown[] = [];
  const { factory } = memory(() => {
    const server = new McpServer({ name: "typed", version: "1.0.0" });
    server.registerTool("sum", {
      inputSchema: z.object({ a: z.number() }),
      outputSchema: z.object({ total: z.number() }),
    }, ({ a }) => ({
      content: [{ type: "text", text: String(a) }],
      structuredContent: { total: a },
    }));
    return server;
  });
  await using gateway = new McpGateway({
    servers: { t: URL_CONFIG },
    transportFactory: factory,
    jsonSchemaValidator: {
      getValidator<T>(schema: Record<string, unknown>) {
        schemas.push(schema);
        return (input: unknown): McpJsonSchemaValidation<T> => ({
          valid: true,
          data: input as T,
          errorMessage: undefined,
        });
      },
    },
  });
  const toolSet = await new ToolRouter({ gateway }).expose({ mcpServers: ["t"] });
  assertEquals(await toolSet.invoke("sum", { a: 2 }), "2");
  assert(schemas.length >= 1);
});

Deno.test("McpGateway answers form elicitation through onElicitation, with schema defaults", async () => {
  const asked: string[] = [];
  const { factory } = memory((serverId, userId) => {
    const server = new McpServer({ name: "asker", version: "1.0.0" });
    server.registerTool("book", { inputSchema: z.object({}) }, async () => {
      const answer = await server.server.elicitInput({
        message: `Which seat, ${userId}?`,
        requestedSchema: {
          type: "object",
          properties: {
            seat: { type: "string" },
            meal: { type: "string", default: "veg" },
          },
          required: ["seat"],
        },
      });
      return { content: [{ type: "text", text: `${serverId}: ${JSON.stringify(answer)}` }] };
    });
    return server;
  });
  await using gateway = new McpGateway({
    transportFactory: factory,
    onElicitation: (request) => {
      asked.push(`${request.serverId}/${request.userId}: ${request.message}`);
      return { action: "accept", content: { seat: "12A" } };
    },
  });
  gateway.addUserServer("alice", "air", URL_CONFIG);
  const toolSet = await new ToolRouter({ gateway }).expose({
    mcpServers: ["air"],
    userId: "alice",
  });
  assertEquals(
    await toolSet.invoke("book", {}),
    'air: {"action":"accept","content":{"seat":"12A","meal":"veg"}}',
  );
  assertEquals(asked, ["air/alice: Which seat, alice?"]);
});

Deno.test("McpGateway declines elicitation it cannot answer", async () => {
  const { factory } = memory(() => {
    const server = new McpServer({ name: "asker", version: "1.0.0" });
    server.registerTool("ask", { inputSchema: z.object({}) }, async () => {
      await server.server.elicitInput({
        message: "Name?",
        requestedSchema: { type: "object", properties: { name: { type: "string" } } },
      });
      return { content: [{ type: "text", text: "unreachable" }] };
    });
    return server;
  });
  await using gateway = new McpGateway({ servers: { s: URL_CONFIG }, transportFactory: factory });
  const toolSet = await new ToolRouter({ gateway }).expose({ mcpServers: ["s"] });
  const result = await toolSet.call("ask", {});
  assertEquals(result.code, "tool_error");
  assertMatch(result.text, /elicitation/i);
});

Deno.test("McpGateway lists tools again after toolListTtlMs, without a notification", async () => {
  const names = ["first"];
  const { factory } = memory(() => {
    const server = new Server({ name: "quiet", version: "1.0.0" }, { capabilities: { tools: {} } });
    server.setRequestHandler("tools/list", () => ({
      tools: names.map((name) => ({ name, inputSchema: { type: "object" as const } })),
    }));
    return server;
  });
  // Within the time to live the list is kept; past it, listed again. Two gateways, so that
  // neither assertion depends on how fast a loaded machine runs the test: a minute cannot pass
  // between two lists, and 30 ms always have after a wait of 40 ms.
  await using kept = new McpGateway({
    servers: { q: URL_CONFIG },
    transportFactory: factory,
    toolListTtlMs: 60_000,
  });
  await using expiring = new McpGateway({
    servers: { q: URL_CONFIG },
    transportFactory: factory,
    toolListTtlMs: 30,
  });
  const listed = async (
    gateway: McpGateway,
  ) => [...(await new ToolRouter({ gateway }).expose({ mcpServers: ["q"] })).names];
  assertEquals(await listed(kept), ["first"]);
  assertEquals(await listed(expiring), ["first"]);
  names.push("second");
  assertEquals(await listed(kept), ["first"]);
  await new Promise((resolve) => setTimeout(resolve, 40));
  assertEquals(await listed(expiring), ["first", "second"]);
});

Deno.test("McpGateway status() walks closed → connecting → ready, and failed with attempts", async () => {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => open = resolve);
  const { factory } = memory(() => echoServer());
  const events: string[] = [];
  await using gateway = new McpGateway({
    servers: { slow: URL_CONFIG, broken: URL_CONFIG },
    transportFactory: async (config, request) => {
      if (request.serverId === "broken") throw new Error("no route to the server");
      await gate;
      return await factory(config, request);
    },
    reconnect: { initialDelayMs: 10_000 },
    onEvent: (event) => events.push(`${event.type}:${event.serverId}`),
  });
  assertEquals(gateway.status().map((s) => s.state), ["closed", "closed"]);
  const exposing = new ToolRouter({ gateway }).expose({ mcpServers: ["slow", "broken"] });
  await new Promise((resolve) => setTimeout(resolve, 10));
  assertEquals(gateway.status()[0].state, "connecting");
  open();
  const toolSet = await exposing;
  assertEquals(toolSet.missing.map((m) => m.name), ["broken"]);
  const [slow, broken] = gateway.status();
  assertEquals([slow.state, broken.state], ["ready", "failed"]);
  assertEquals([broken.reconnectAttempts, broken.lastError], [1, "no route to the server"]);
  assertEquals(events.sort(), [
    "connect_failed:broken",
    "connected:slow",
    "connecting:broken",
    "connecting:slow",
  ]);
});

Deno.test("McpGateway: 1,000 users of one server keep their own header and tool list, and share compiled schemas", async () => {
  const { inProcessServer } = await import("../_in_process_http.ts");
  const outputSchema = { answer: z.string() };
  // Each request's server is built for the header it carries: the user's own tool and `whoami`,
  // which answer with the header's user (the header itself would come back `[redacted]`).
  const http = inProcessServer((request) => {
    const who = (request?.headers.get("authorization") ?? "").slice("Bearer ".length);
    const server = new McpServer({ name: "users", version: "1.0.0" });
    server.registerTool("whoami", { outputSchema }, () => ({
      content: [{ type: "text", text: `Bearer of ${who}` }],
      structuredContent: { answer: who },
    }));
    server.registerTool(`own_${who}`, {}, () => ({
      content: [{ type: "text", text: `own of ${who}` }],
    }));
    return server;
  }, { stateless: true });
  const compiled: string[] = [];
  const gateway = new McpGateway({
    fetch: http.fetch,
    jsonSchemaValidator: {
      getValidator<T>(schema: Record<string, unknown>) {
        compiled.push(JSON.stringify(schema));
        return (input: unknown) =>
          ({ valid: true, data: input as T, errorMessage: undefined }) as McpJsonSchemaValidation<
            T
          >;
      },
    },
  });
  const router = new ToolRouter({ gateway });
  const users = Array.from({ length: 1000 }, (_, u) => `u${u}`);
  for (let batch = 0; batch < users.length; batch += 50) {
    await Promise.all(
      users.slice(batch, batch + 50).map(async (user) => {
        gateway.addUserServer(user, "s", URL_CONFIG_WITH(user));
        const toolSet = await router.expose({ mcpServers: ["s"], userId: user });
        assertEquals(toolSet.tools.map((tool) => tool.function.name).sort(), [
          `own_${user}`,
          "whoami",
        ]);
        assertEquals(await toolSet.invoke("whoami", "{}"), `Bearer of ${user}`);
        assertEquals(await toolSet.invoke(`own_${user}`, "{}"), `own of ${user}`);
        const other = `u${(Number(user.slice(1)) + 1) % 1000}`;
        assertMatch(await toolSet.invoke(`own_${other}`, "{}"), /Unknown tool/);
      }),
    );
  }
  // One output schema, compiled once for all 1,000 connections.
  assertEquals(compiled.length, 1);
  assertEquals(gateway.status().filter((s) => s.state === "ready").length, 1000);
  await gateway.close();
  await http.close();
});

function URL_CONFIG_WITH(user: string) {
  return { ...URL_CONFIG, headers: { authorization: `Bearer ${user}` } };
}

import {
  assert,
  assertEquals,
  assertGreater,
  assertGreaterOrEqual,
  assertMatch,
  assertRejects,
} from "@std/assert";
import { z } from "zod";
import { ToolError } from "../../../../../src/core/tool_error.ts";
import { RequestNotDeliveredError } from "../../../../../src/core/mcp/gateway/http/guarded_fetch.ts";
import { SessionExpiredError } from "../../../../../src/core/mcp/gateway/http/http_client_transport.ts";
import type { McpGatewayEvent } from "../../../../../src/core/mcp/gateway/mcp_gateway_types.ts";
import type { McpServerConfig } from "../../../../../src/core/mcp/mcp_server_config.ts";
import type {
  McpTransport,
  McpTransportFactory,
} from "../../../../../src/core/mcp/mcp_transport.ts";
import { Server } from "../../../../../src/core/mcp/mcp_sdk.ts";
import { InMemoryTransport, McpServer } from "@modelcontextprotocol/server";
import { inProcessServer } from "../../_in_process_http.ts";
import { ServerConnection } from "../../../../../src/core/mcp/gateway/connection/server_connection.ts";
import type { ConnectionSettings } from "../../../../../src/core/mcp/gateway/connection/connection_settings.ts";

const URL_CONFIG: McpServerConfig = { url: "http://127.0.0.1:9/mcp" };

/** Connects each attempt to a fresh in-memory SDK server; counts attempts and open transports. */
function memory(
  make: () => McpServer | Server,
  wrap?: (transport: InMemoryTransport, attempt: number) => void,
) {
  const stats = { made: 0, live: 0, servers: [] as (McpServer | Server)[] };
  const factory: McpTransportFactory = async () => {
    const [client, serverSide] = InMemoryTransport.createLinkedPair();
    const server = make();
    await server.connect(serverSide);
    stats.servers.push(server);
    stats.made++;
    stats.live++;
    const onclose = serverSide.onclose;
    let closed = false;
    serverSide.onclose = () => {
      if (!closed) stats.live--;
      closed = true;
      onclose?.();
    };
    wrap?.(client, stats.made);
    return client as unknown as McpTransport;
  };
  return { factory, stats };
}

function echoServer(calls = { count: 0 }): McpServer {
  const server = new McpServer({ name: "echo", version: "1.0.0" });
  server.registerTool("echo", { inputSchema: z.object({ text: z.string() }) }, ({ text }) => {
    calls.count++;
    return { content: [{ type: "text", text }] };
  });
  return server;
}

function settings(
  transportFactory: McpTransportFactory | undefined,
  events: McpGatewayEvent[] = [],
  overrides: Partial<ConnectionSettings> = {},
): ConnectionSettings {
  return {
    serverId: "s",
    config: URL_CONFIG,
    connectTimeoutMs: 1000,
    maxResponseBytes: 1_000_000,
    requestTimeoutMs: 2000,
    reconnect: { initialDelayMs: 20, maxDelayMs: 100, factor: 2, attempts: 3 },
    emit: (event) => events.push(event),
    transportFactory,
    ...overrides,
  };
}

const ctx = () => ({ signal: new AbortController().signal });
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await delay(5);
  assert(check(), "the condition never came true");
}

Deno.test("ServerConnection opens nothing until used and reports itself closed", async () => {
  const { factory, stats } = memory(() => echoServer());
  const global = new ServerConnection(settings(factory));
  const mine = new ServerConnection(settings(factory, [], { userId: "alice" }));
  assertEquals([global.state, global.tools, global.version, stats.made], ["closed", [], 0, 0]);
  assertEquals(global.status(), { id: "s", state: "closed", tools: 0, reconnectAttempts: 0 });
  assertEquals(mine.status().userId, "alice");
  assertGreater(mine.serial, global.serial);
  await global.close();
  await mine.close();
  assertEquals(stats.made, 0);
});

Deno.test("ServerConnection.listTools() connects once for concurrent callers and caches the list", async () => {
  let lists = 0;
  const { factory, stats } = memory(() => {
    const server = new Server({ name: "low", version: "1.0.0" }, { capabilities: { tools: {} } });
    server.setRequestHandler("tools/list", () => {
      lists++;
      return { tools: [{ name: "a", inputSchema: { type: "object" as const } }] };
    });
    return server;
  });
  const events: McpGatewayEvent[] = [];
  const seen: string[] = [];
  const connection: ServerConnection = new ServerConnection(
    settings(
      (config, request) => {
        seen.push(connection.state);
        return factory(config, request);
      },
      events,
      { userId: "u" },
    ),
  );
  const first = connection.listTools();
  const second = connection.listTools();
  assertEquals((await first).map((t) => t.name), ["a"]);
  assertEquals(await second, await first);
  assertEquals(await connection.listTools(), await first);
  assertEquals([stats.made, lists, connection.version], [1, 1, 1]);
  assertEquals(seen, ["connecting"]);
  assertEquals(connection.status(), {
    id: "s",
    userId: "u",
    state: "ready",
    tools: 1,
    reconnectAttempts: 0,
    transport: "custom",
    protocol: "2025-11-25",
  });
  assertEquals(events, [
    { type: "connecting", serverId: "s", userId: "u" },
    { type: "connected", serverId: "s", userId: "u", tools: 1 },
  ]);
  await connection.close();
  assertEquals([connection.state, stats.live], ["closed", 0]);
});

Deno.test("ServerConnection.listTools() fails at once during backoff and connects after it", async () => {
  let fail = true;
  const { factory, stats } = memory(() => echoServer());
  let attempts = 0;
  const events: McpGatewayEvent[] = [];
  const connection = new ServerConnection(settings(
    async (config, request) => {
      attempts++;
      if (fail) throw new Error("TypeError: connection refused\nat somewhere");
      return await factory(config, request);
    },
    events,
    { reconnect: { initialDelayMs: 150, maxDelayMs: 150, factor: 2, attempts: 3 } },
  ));
  await assertRejects(() => connection.listTools(), Error, "connection refused");
  assertEquals(connection.status(), {
    id: "s",
    state: "failed",
    tools: 0,
    lastError: "connection refused",
    reconnectAttempts: 1,
  });
  const early = await assertRejects(() => connection.listTools(), Error);
  assertMatch(early.message, /^connection refused; next attempt in \d+ ms$/);
  assertEquals(attempts, 1);
  fail = false;
  await delay(160);
  assertEquals((await connection.listTools()).map((t) => t.name), ["echo"]);
  assertEquals(connection.status().reconnectAttempts, 0);
  assertEquals(connection.status().lastError, undefined);
  assertEquals(events.map((e) => [e.type, e.message]), [
    ["connecting", undefined],
    ["connect_failed", "connection refused"],
    ["connecting", undefined],
    ["connected", undefined],
  ]);
  await connection.close();
  assertEquals(stats.live, 0);
});

Deno.test("ServerConnection redacts configured header values from errors, status and events", async () => {
  const secret = "sk-live-0123456789";
  const events: McpGatewayEvent[] = [];
  const connection = new ServerConnection(settings(
    () => {
      throw new Error(`401 for token ${secret}`);
    },
    events,
    { config: { url: URL_CONFIG.url, headers: { authorization: `Bearer ${secret}` } } },
  ));
  const error = await assertRejects(() => connection.listTools(), Error);
  assertEquals(error.message, "401 for token [redacted]");
  assertEquals(connection.status().lastError, "401 for token [redacted]");
  assertEquals(events[1].message, "401 for token [redacted]");
  const call = await assertRejects(() => connection.callTool("echo", {}, ctx()), ToolError);
  assertEquals(call.code, "upstream_unavailable");
  assertEquals(call.message.includes(secret), false);
  await connection.close();
});

Deno.test("ServerConnection redacts a long error message before cutting it, so status() keeps no part of a token", async () => {
  const secret = "sk-live-0123456789abcdef0123456789";
  const events: McpGatewayEvent[] = [];
  const connection = new ServerConnection(settings(
    () => {
      // The token straddles the 500th character, where status() and events cut the message.
      throw new Error(`${"x".repeat(490)}${secret} refused`);
    },
    events,
    { config: { url: URL_CONFIG.url, headers: { "x-api-key": secret } } },
  ));
  await assertRejects(() => connection.listTools(), Error);
  const lastError = connection.status().lastError!;
  assertEquals(lastError, `${"x".repeat(490)}[redacted]`); // then cut at 500
  assertEquals(events[1].message, lastError);
  await connection.close();
});

Deno.test("ServerConnection.listTools() abort ends the wait, not the connection attempt", async () => {
  const gate = Promise.withResolvers<void>();
  const { factory, stats } = memory(() => echoServer());
  const connection = new ServerConnection(settings(async (config, request) => {
    await gate.promise;
    return await factory(config, request);
  }));
  const controller = new AbortController();
  const waiting = connection.listTools(controller.signal);
  controller.abort(new Error("caller left"));
  await assertRejects(() => waiting, Error, "caller left");
  assertEquals(connection.state, "connecting");
  gate.resolve();
  assertEquals((await connection.listTools()).length, 1);
  assertEquals(stats.made, 1);
  await connection.close();
});

Deno.test("ServerConnection closes for good on a stdio config it cannot spawn", async () => {
  const connection = new ServerConnection(settings(undefined, [], { config: { command: "x" } }));
  await assertRejects(() => connection.listTools(), Error, "stdio servers");
  assertEquals(connection.state, "closed");
  await assertRejects(() => connection.listTools(), Error, 'MCP server "s" was closed');
  await connection.close();
});

Deno.test("ServerConnection refreshes its tools on list_changed and bumps the version", async () => {
  const { factory, stats } = memory(() => echoServer());
  const events: McpGatewayEvent[] = [];
  const connection = new ServerConnection(settings(factory, events));
  await connection.listTools();
  assertEquals(connection.version, 1);
  (stats.servers[0] as McpServer).registerTool("later", {}, () => ({ content: [] }));
  await until(() => connection.version === 2);
  assertEquals(connection.tools.map((t) => t.name), ["echo", "later"]);
  assertEquals(events.at(-1), { type: "tools_changed", serverId: "s", tools: 2 });
  await connection.close();
});

Deno.test("ServerConnection keeps the newest tool list when list_changed refreshes overlap", async () => {
  let names = ["v0"];
  let lists = 0;
  const slow = Promise.withResolvers<void>();
  const { factory, stats } = memory(() => {
    const capabilities = { tools: { listChanged: true } };
    const server = new Server({ name: "changing", version: "1.0.0" }, { capabilities });
    server.setRequestHandler("tools/list", async () => {
      const tools = names.map((name) => ({ name, inputSchema: { type: "object" as const } }));
      // The answer to the first refresh comes after the second change was announced.
      if (++lists === 2) await slow.promise;
      return { tools };
    });
    return server;
  });
  const connection = new ServerConnection(settings(factory));
  await connection.listTools();
  const server = stats.servers[0] as Server;
  names = ["v1"];
  await server.sendToolListChanged();
  await until(() => lists === 2);
  names = ["v2"];
  await server.sendToolListChanged();
  await delay(20);
  assertEquals(lists, 2, "one listing at a time");
  slow.resolve();
  await until(() => connection.version === 3);
  await delay(20);
  assertEquals([connection.tools.map((t) => t.name), lists, connection.version], [["v2"], 3, 3]);
  await connection.close();
});

Deno.test("ServerConnection lists tools again on use once toolListTtlMs has passed", async () => {
  const names = ["first"];
  const { factory } = memory(() => {
    const server = new Server({ name: "quiet", version: "1.0.0" }, { capabilities: { tools: {} } });
    server.setRequestHandler("tools/list", () => ({
      tools: names.map((name) => ({ name, inputSchema: { type: "object" as const } })),
    }));
    return server;
  });
  const connection = new ServerConnection(settings(factory, [], { toolListTtlMs: 100 }));
  await connection.listTools();
  names.push("second");
  assertEquals((await connection.listTools()).length, 1);
  await delay(110);
  assertEquals((await connection.listTools()).map((t) => t.name), ["first", "second"]);
  assertEquals(connection.version, 2);
  await connection.close();
});

Deno.test("ServerConnection.callTool() answers and counts calls in flight", async () => {
  const release = Promise.withResolvers<void>();
  const { factory } = memory(() => {
    const server = echoServer();
    server.registerTool("wait", {}, async () => {
      await release.promise;
      return { content: [{ type: "text", text: "waited" }] };
    });
    return server;
  });
  const connection = new ServerConnection(settings(factory));
  assertEquals(textOf(await connection.callTool("echo", { text: "hi" }, ctx())), "hi");
  assertEquals(connection.state, "ready");
  const before = connection.lastUsedAt;
  const waiting = connection.callTool("wait", {}, ctx());
  await until(() => connection.inFlight === 1);
  release.resolve();
  assertEquals(textOf(await waiting), "waited");
  assertEquals(connection.inFlight, 0);
  assertGreaterOrEqual(connection.lastUsedAt, before);
  await connection.close();
});

Deno.test("ServerConnection.callTool() ends calls at the deadline or on abort with timeout and aborted", async () => {
  const { factory } = memory(() => {
    const server = echoServer();
    server.registerTool("hang", {}, () => new Promise(() => {}));
    return server;
  });
  const connection = new ServerConnection(settings(factory, [], { requestTimeoutMs: 50 }));
  const timeout = await assertRejects(() => connection.callTool("hang", {}, ctx()), ToolError);
  assertEquals(timeout.code, "timeout");
  const controller = new AbortController();
  const aborted = connection.callTool("hang", {}, { signal: controller.signal, timeoutMs: 5000 });
  controller.abort();
  assertEquals((await assertRejects(() => aborted, ToolError)).code, "aborted");
  assertEquals(connection.inFlight, 0);
  await connection.close();
});

Deno.test("ServerConnection reconnects on the next call after the connection was lost", async () => {
  const { factory, stats } = memory(() => echoServer());
  const events: McpGatewayEvent[] = [];
  const connection = new ServerConnection(
    settings(factory, events, {
      reconnect: { initialDelayMs: 10_000, maxDelayMs: 10_000, factor: 2, attempts: 3 },
    }),
  );
  assertEquals(textOf(await connection.callTool("echo", { text: "1" }, ctx())), "1");
  await stats.servers[0].close();
  assertEquals(connection.state, "failed");
  assertEquals(connection.status().lastError, "The connection was lost");
  assertEquals(connection.status().reconnectAttempts, 0);
  assertEquals(events.at(-1), {
    type: "disconnected",
    serverId: "s",
    message: "The connection was lost",
  });
  assertEquals(textOf(await connection.callTool("echo", { text: "2" }, ctx())), "2");
  assertEquals([stats.made, connection.state], [2, "ready"]);
  await connection.close();
  assertEquals(stats.live, 0);
});

Deno.test("ServerConnection.callTool() tries reconnect.attempts connections, then fails upstream_unavailable", async () => {
  let attempts = 0;
  const connection = new ServerConnection(settings(() => {
    attempts++;
    throw new Error("no route to the server");
  }));
  const started = performance.now();
  const error = await assertRejects(() => connection.callTool("echo", {}, ctx()), ToolError);
  assertEquals(error.code, "upstream_unavailable");
  assertMatch(error.message, /no route to the server/);
  assertEquals(attempts, 3);
  assertGreaterOrEqual(performance.now() - started, 20 + 40 - 5, "it waits out the backoff");
  assertEquals(connection.status().reconnectAttempts, 3);
  await connection.close();
});

/** Makes the first `times` tools/call sends of each connection fail with `error()` unsent. */
function refuseCalls(times: number, error: () => Error) {
  let refused = 0;
  return (transport: InMemoryTransport) => {
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      if ((message as { method?: string }).method === "tools/call" && refused < times) {
        refused++;
        return Promise.reject(error());
      }
      return send(message, options);
    };
  };
}

Deno.test("ServerConnection sends an undelivered call once more on a fresh connection", async () => {
  const calls = { count: 0 };
  const { factory, stats } = memory(
    () => echoServer(calls),
    refuseCalls(1, () => new RequestNotDeliveredError("Cannot connect to http://127.0.0.1:9")),
  );
  const connection = new ServerConnection(settings(factory, [], {
    reconnect: { initialDelayMs: 60, maxDelayMs: 100, factor: 2, attempts: 3 },
  }));
  await connection.listTools();
  const started = performance.now();
  assertEquals(textOf(await connection.callTool("echo", { text: "again" }, ctx())), "again");
  assertGreaterOrEqual(performance.now() - started, 55, "an undelivered call waits the backoff");
  assertEquals([calls.count, stats.made, stats.live], [1, 2, 1]);
  await connection.close();
});

Deno.test("ServerConnection re-initialises an expired session at once and sends the call again", async () => {
  const calls = { count: 0 };
  const { factory, stats } = memory(
    () => echoServer(calls),
    refuseCalls(1, () => new SessionExpiredError()),
  );
  const connection = new ServerConnection(settings(factory, [], {
    reconnect: { initialDelayMs: 10_000, maxDelayMs: 10_000, factor: 2, attempts: 3 },
    requestTimeoutMs: 3000,
  }));
  assertEquals(textOf(await connection.callTool("echo", { text: "fresh" }, ctx())), "fresh");
  assertEquals([calls.count, stats.made, stats.live], [1, 2, 1]);
  await connection.close();
});

Deno.test("ServerConnection sends an undelivered call at most twice", async () => {
  const { factory, stats } = memory(
    () => echoServer(),
    refuseCalls(5, () => new SessionExpiredError("still expired")),
  );
  const connection = new ServerConnection(settings(factory));
  const error = await assertRejects(
    () => connection.callTool("echo", { text: "x" }, ctx()),
    ToolError,
  );
  assertEquals(error.code, "upstream_unavailable");
  assertMatch(error.message, /still expired/);
  assertEquals(stats.made, 2);
  await connection.close();
});

Deno.test("ServerConnection never sends a delivered call twice when the server goes away mid-call", async () => {
  const calls = { count: 0 };
  const started = Promise.withResolvers<void>();
  const { factory, stats } = memory(() => {
    const server = new McpServer({ name: "crash", version: "1.0.0" });
    server.registerTool("work", {}, () => {
      calls.count++;
      started.resolve();
      return new Promise(() => {});
    });
    return server;
  });
  const connection = new ServerConnection(settings(factory));
  const call = connection.callTool("work", {}, ctx());
  await started.promise;
  await stats.servers[0].close();
  const error = await assertRejects(() => call, ToolError);
  assertEquals(error.code, "upstream_unavailable");
  assertEquals([calls.count, stats.made], [1, 1]);
  await connection.close();
});

Deno.test("ServerConnection.close() closes the transport and refuses later use", async () => {
  const { factory, stats } = memory(() => echoServer());
  const connection = new ServerConnection(settings(factory));
  await connection.listTools();
  await connection.close();
  assertEquals([connection.state, stats.live], ["closed", 0]);
  await assertRejects(() => connection.listTools(), Error, 'MCP server "s" was closed');
  const error = await assertRejects(() => connection.callTool("echo", {}, ctx()), ToolError);
  assertEquals(error.code, "upstream_unavailable");
  assertMatch(error.message, /was closed/);
  assertEquals(stats.made, 1);
});

Deno.test("ServerConnection.close() while connecting ends closed and closes the new transport", async () => {
  const gate = Promise.withResolvers<void>();
  const { factory, stats } = memory(() => echoServer());
  const events: McpGatewayEvent[] = [];
  const connection = new ServerConnection(settings(async (config, request) => {
    await gate.promise;
    return await factory(config, request);
  }, events));
  const listing = connection.listTools();
  const closing = connection.close();
  gate.resolve();
  await assertRejects(() => listing, Error, 'MCP server "s" was closed');
  await closing;
  assertEquals([connection.state, stats.made, stats.live], ["closed", 1, 0]);
  assertEquals(events.map((e) => e.type), ["connecting", "connect_failed"]);
});

Deno.test("ServerConnection over HTTP opens a new session when the old one expired, sending the call once", async () => {
  const calls = { count: 0 };
  let expired: string | null = null;
  const http = inProcessServer(() => echoServer(calls), {
    intercept: (request) =>
      expired !== null && request.headers.get("mcp-session-id") === expired
        ? new Response("unknown session", { status: 404 })
        : undefined,
  });
  const connection = new ServerConnection(settings(undefined, [], {
    fetch: http.fetch,
    reconnect: { initialDelayMs: 10_000, maxDelayMs: 10_000, factor: 2, attempts: 3 },
  }));
  assertEquals(textOf(await connection.callTool("echo", { text: "1" }, ctx())), "1");
  assertEquals(connection.status().transport, "http");
  const sessions = http.requests.map((r) => r.headers.get("mcp-session-id"));
  expired = sessions.findLast((id) => id !== null) ?? null;
  assert(expired !== null);
  assertEquals(textOf(await connection.callTool("echo", { text: "2" }, ctx())), "2");
  assertEquals(calls.count, 2);
  const initializes = http.requests.filter((r) => r.body.includes('"initialize"'));
  assertEquals(initializes.length, 2);
  await connection.close();
  await http.close();
});

function textOf(output: { content: readonly unknown[] }): string {
  return output.content.map((block) => (block as { text: string }).text).join("\n\n");
}

Deno.test("ServerConnection redacts header values from an error result's text, and leaves one without them as it is", async () => {
  const secret = "sk-live-0123456789";
  const { factory } = memory(() => {
    const server = new McpServer({ name: "fails", version: "1.0.0" });
    server.registerTool("fail", { inputSchema: z.object({ text: z.string() }) }, ({ text }) => ({
      isError: true,
      content: [{ type: "text", text }, { type: "image", data: "AAAA", mimeType: "image/png" }],
    }));
    return server;
  });
  const connection = new ServerConnection(settings(factory, [], {
    config: { url: URL_CONFIG.url, headers: { authorization: `Bearer ${secret}` } },
  }));
  try {
    const leaked = await connection.callTool("fail", { text: `bad token ${secret}` }, ctx());
    assertEquals(leaked.isError, true);
    assertEquals(leaked.content[0], { type: "text", text: "bad token [redacted]" });
    assertEquals(leaked.content[1].type, "image");
    const plain = await connection.callTool("fail", { text: "bad input" }, ctx());
    assertEquals(plain.content[0], { type: "text", text: "bad input" });
    assertEquals(plain.isError, true);
  } finally {
    await connection.close();
  }
});

Deno.test("ServerConnection.callTool() over HTTP still validates a tool's output schema and refuses a broken result", async () => {
  // A low-level server, so a result can break the tool's own output schema (an McpServer would
  // refuse to send it): the plain tool's calls go straight over HTTP, the typed tool's through
  // the SDK client, which validates structured results.
  const typed = { type: "object", properties: { n: { type: "number" } }, required: ["n"] };
  const sent: unknown[] = [{ n: 1 }, { n: "one" }, undefined];
  const http = inProcessServer(() => {
    const server = new Server({ name: "typed", version: "1.0.0" }, {
      capabilities: { tools: {} },
    });
    server.setRequestHandler("tools/list", () => ({
      tools: [
        { name: "plain", inputSchema: { type: "object" } },
        { name: "typed", inputSchema: { type: "object" }, outputSchema: typed },
      ],
    }));
    server.setRequestHandler("tools/call", (request) => {
      if (request.params.name === "plain") return { content: [{ type: "text", text: "plain" }] };
      const structured = sent.shift();
      return {
        content: [{ type: "text", text: JSON.stringify(structured ?? null) }],
        ...(structured === undefined ? {} : { structuredContent: structured }),
      };
    });
    return server as unknown as McpServer;
  });
  const connection = new ServerConnection(settings(undefined, [], { fetch: http.fetch }));
  assertEquals(textOf(await connection.callTool("plain", {}, ctx())), "plain");
  assertEquals(connection.status().transport, "http");
  const valid = await connection.callTool("typed", {}, ctx());
  assertEquals(valid.structuredContent, { n: 1 });
  const broken = await assertRejects(() => connection.callTool("typed", {}, ctx()), ToolError);
  assertMatch(broken.message, /output schema/);
  const missing = await assertRejects(() => connection.callTool("typed", {}, ctx()), ToolError);
  assertMatch(missing.message, /output schema but did not return structured content/);
  assertEquals(sent.length, 0, "every typed call reached the server");
  assertEquals(textOf(await connection.callTool("plain", {}, ctx())), "plain");
  assertEquals(connection.inFlight, 0);
  await connection.close();
});

Deno.test("ServerConnection.callTool() over HTTP refuses a result that is not a tool result", async () => {
  // A result that is not one must come back as a clear error, never pass on to a serving client.
  // The SDK's servers check their own results, so this one is raw JSON-RPC over HTTP (2025 only).
  const answers: unknown[] = [
    { content: "not a list" },
    { content: [{ type: "image", data: 5, mimeType: "image/png" }] },
    { content: [{ type: "text" }] },
    { content: [{ type: "bogus", text: "x" }] },
    { content: [{ type: "text", text: "ok" }], isError: "yes" },
    { content: [{ type: "text", text: "ok" }], structuredContent: [1] },
    null,
    "text",
  ];
  const broken = answers.length;
  let served = 0;
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    if (request.method !== "POST") return new Response(null, { status: 405 });
    const message = await request.json();
    if (message.id === undefined) return new Response(null, { status: 202 });
    const answer = (result: unknown) =>
      Response.json({ jsonrpc: "2.0", id: message.id, result }, {
        headers: { "content-type": "application/json" },
      });
    if (message.method === "initialize") {
      return answer({
        protocolVersion: message.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "raw", version: "1.0.0" },
      });
    }
    if (message.method === "tools/list") {
      return answer({ tools: [{ name: "plain", inputSchema: { type: "object" } }] });
    }
    if (message.method !== "tools/call") {
      return Response.json({
        jsonrpc: "2.0",
        id: message.id,
        error: { code: -32601, message: "Method not found" },
      });
    }
    served++;
    return answer(
      answers.length > 0 ? answers.shift() : { content: [{ type: "text", text: "fine" }] },
    );
  };
  const connection = new ServerConnection(settings(undefined, [], { fetch }));
  for (let i = 0; i < broken; i++) {
    const error = await assertRejects(() => connection.callTool("plain", {}, ctx()), ToolError);
    assertEquals(error.code, "tool_error", `answer ${i}: ${error.message}`);
    assertMatch(error.message, /"plain"/);
  }
  assertEquals(served, broken, "every broken answer was sent");
  assertEquals(textOf(await connection.callTool("plain", {}, ctx())), "fine");
  assertEquals(connection.inFlight, 0);
  await connection.close();
});

/**
 * A server echoing `who` (the header its session was opened with, or a token it was given) in
 * every kind of block, in a successful or an error result, and in structured content; `typed`
 * declares an output schema (its calls go through the SDK client), `plain` echoes nothing.
 */
function leakingServer(who: string): McpServer {
  const server = new McpServer({ name: "leaks", version: "1.0.0" });
  server.registerTool("leak", { inputSchema: z.object({ error: z.boolean() }) }, ({ error }) => ({
    isError: error,
    content: [
      { type: "text", text: `denied for ${who}` },
      { type: "resource", resource: { uri: `https://crm.example/?auth=${who}`, text: who } },
      { type: "resource", resource: { uri: "https://crm.example/a.bin", blob: "AAAA" } },
      {
        type: "resource_link",
        uri: `https://crm.example/?auth=${who}`,
        name: `key ${who}`,
        title: `Title ${who}`,
        description: `Made with ${who}`,
        _meta: { auth: who },
      },
      { type: "image", data: "AAAA", mimeType: "image/png" },
    ],
    structuredContent: { echo: who, rows: [{ [who]: who }] },
  }));
  server.registerTool("typed", { outputSchema: z.object({ answer: z.string() }) }, () => ({
    content: [{ type: "text", text: who }],
    structuredContent: { answer: who },
  }));
  server.registerTool("plain", {}, () => ({
    content: [{ type: "text", text: "fine" }, {
      type: "image",
      data: "AAAA",
      mimeType: "image/png",
    }],
    structuredContent: { n: 1 },
  }));
  return server;
}

/** What `leak` comes back as with `who` redacted. */
function redactedLeak(isError: boolean) {
  return {
    content: [
      { type: "text", text: "denied for [redacted]" },
      {
        type: "resource",
        resource: { uri: "https://crm.example/?auth=[redacted]", text: "[redacted]" },
      },
      { type: "resource", resource: { uri: "https://crm.example/a.bin", blob: "AAAA" } },
      {
        type: "resource_link",
        uri: "https://crm.example/?auth=[redacted]",
        name: "key [redacted]",
        title: "Title [redacted]",
        description: "Made with [redacted]",
        _meta: { auth: "[redacted]" },
      },
      { type: "image", data: "AAAA", mimeType: "image/png" },
    ],
    structuredContent: { echo: "[redacted]", rows: [{ "[redacted]": "[redacted]" }] },
    ...(isError ? { isError: true } : {}),
  };
}

Deno.test("ServerConnection over HTTP redacts the header a server echoes in every block and structured content, success or error", async () => {
  const token = "sk-live-0123456789abcdef";
  // Stateless: each request's server is made for (and echoes) the header that request carried.
  const http = inProcessServer(
    (request) => leakingServer(request?.headers.get("authorization") ?? "anonymous"),
    { stateless: true },
  );
  const connection = new ServerConnection(settings(undefined, [], {
    config: { url: URL_CONFIG.url, headers: { authorization: `Bearer ${token}` } },
    fetch: http.fetch,
  }));
  try {
    for (const error of [false, true]) {
      // `leak` goes straight over HTTP (no output schema); `typed` through the SDK client.
      const leaked = await connection.callTool("leak", { error }, ctx());
      assertEquals({ ...leaked }, redactedLeak(error));
      assert(!JSON.stringify(leaked).includes(token));
    }
    const typed = await connection.callTool("typed", {}, ctx());
    assertEquals({ ...typed }, {
      content: [{ type: "text", text: "[redacted]" }],
      structuredContent: { answer: "[redacted]" },
    });
    const plain = await connection.callTool("plain", {}, ctx());
    assertEquals(plain.content[0], { type: "text", text: "fine" });
    assertEquals(plain.structuredContent, { n: 1 });
    assert(http.requests.some((r) => r.headers.get("authorization") === `Bearer ${token}`));
  } finally {
    await connection.close();
    await http.close();
  }
});

Deno.test("ServerConnection through the SDK client redacts a stdio-style env secret a server echoes, success or error", async () => {
  const key = "env-secret-0123456789";
  const { factory } = memory(() => leakingServer(key));
  const connection = new ServerConnection(settings(factory, [], {
    config: { command: "server", env: { API_KEY: key } },
  }));
  try {
    for (const error of [false, true]) {
      const leaked = await connection.callTool("leak", { error }, ctx());
      assertEquals({ ...leaked }, redactedLeak(error));
    }
  } finally {
    await connection.close();
  }
});

Deno.test("ServerConnection passes a long result through whole, a long header in it redacted (the router cuts later)", async () => {
  const token = "tok-" + "0123456789abcdef".repeat(8);
  const { factory } = memory(() => {
    const server = new McpServer({ name: "big", version: "1.0.0" });
    server.registerTool("big", {}, () => ({
      content: [{ type: "text", text: `${token}${"x".repeat(1000)}` }],
    }));
    return server;
  });
  const connection = new ServerConnection(settings(factory, [], {
    config: { url: URL_CONFIG.url, headers: { "x-api-key": token } },
  }));
  try {
    const text = textOf(await connection.callTool("big", {}, ctx()));
    assertEquals(text, `[redacted]${"x".repeat(1000)}`);
    assert(!text.includes(token.slice(0, 12)), text);
  } finally {
    await connection.close();
  }
});

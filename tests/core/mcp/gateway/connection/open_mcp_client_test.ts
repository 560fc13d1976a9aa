import { assert, assertEquals, assertInstanceOf, assertRejects } from "@std/assert";
import { z } from "zod";
import type { McpTransport } from "../../../../../src/core/mcp/mcp_transport.ts";
import { SdkHttpError } from "../../../../../src/core/mcp/mcp_sdk.ts";
import { InMemoryTransport, McpServer } from "@modelcontextprotocol/server";
import {
  type OpenClientSettings,
  openMcpClient,
  StdioUnsupportedError,
} from "../../../../../src/core/mcp/gateway/connection/open_mcp_client.ts";
import { inProcessServer } from "../../_in_process_http.ts";

function echoServer(): McpServer {
  const server = new McpServer({ name: "echo", version: "1.0.0" });
  server.registerTool("echo", { inputSchema: z.object({ text: z.string() }) }, ({ text }) => ({
    content: [{ type: "text", text }],
  }));
  return server;
}

function settings(overrides: Partial<OpenClientSettings> = {}): OpenClientSettings {
  return {
    serverId: "s",
    config: { url: "http://127.0.0.1:9/mcp" },
    connectTimeoutMs: 2000,
    maxResponseBytes: 1_000_000,
    ...overrides,
  };
}

Deno.test("openMcpClient() uses the factory's transport and reports kind custom", async () => {
  const asked: unknown[] = [];
  const server = echoServer();
  const opened = await openMcpClient(settings({
    userId: "alice",
    transportFactory: async (config, request) => {
      asked.push([config, request]);
      const [client, serverSide] = InMemoryTransport.createLinkedPair();
      await server.connect(serverSide);
      return client as unknown as McpTransport;
    },
  }));
  assertEquals(opened.kind, "custom");
  assertEquals(asked, [[{ url: "http://127.0.0.1:9/mcp" }, { serverId: "s", userId: "alice" }]]);
  assertEquals((await opened.client.listTools()).tools.map((t) => t.name), ["echo"]);
  assertEquals(opened.client.getServerVersion()?.name, "echo");
  await opened.client.close();
});

Deno.test("openMcpClient() speaks Streamable HTTP when the factory returns undefined", async () => {
  const http = inProcessServer(echoServer);
  let factoryCalls = 0;
  const opened = await openMcpClient(settings({
    config: { url: "http://127.0.0.1:9/mcp", headers: { "x-team": "blue" } },
    fetch: http.fetch,
    transportFactory: () => void factoryCalls++,
  }));
  assertEquals([opened.kind, factoryCalls], ["http", 1]);
  const result = await opened.client.callTool({ name: "echo", arguments: { text: "hi" } });
  assertEquals(result.content, [{ type: "text", text: "hi" }]);
  assert(http.requests.every((r) => r.headers.get("x-team") === "blue"));
  await opened.client.close();
  await http.close();
});

Deno.test("openMcpClient() refuses a stdio config it has no transport for, naming the ./deno entry", async () => {
  for (const transportFactory of [undefined, () => undefined]) {
    const error = await assertRejects(
      () =>
        openMcpClient(
          settings({ serverId: "files", config: { command: "deno" }, transportFactory }),
        ),
      StdioUnsupportedError,
    );
    assertEquals(error instanceof TypeError, true);
    assertEquals(
      error.message,
      'Cannot connect to MCP server "files": stdio servers ("command") need the ' +
        '"@toolroute/toolroute/deno" entry (createDenoGateway) or a "transportFactory"',
    );
  }
});

for (const status of [400, 404, 405]) {
  Deno.test(`openMcpClient() falls back to SSE when Streamable HTTP is answered with ${status}`, async () => {
    const http = inProcessServer(echoServer, { streamable: false, refuseWith: status });
    const opened = await openMcpClient(settings({ fetch: http.fetch }));
    assertEquals(opened.kind, "sse");
    // The server/discover probe, then initialize, both refused; then the SSE stream.
    assertEquals(http.requests.slice(0, 3).map((r) => r.method), ["POST", "POST", "GET"]);
    const result = await opened.client.callTool({ name: "echo", arguments: { text: "old" } });
    assertEquals(result.content, [{ type: "text", text: "old" }]);
    await opened.client.close();
    await http.close();
  });
}

Deno.test("openMcpClient() does not fall back to SSE on other HTTP errors", async () => {
  const http = inProcessServer(echoServer, { streamable: false, refuseWith: 500 });
  const error = await assertRejects(
    () => openMcpClient(settings({ fetch: http.fetch })),
    SdkHttpError,
  );
  assertEquals(error.status, 500);
  assertEquals(http.requests.map((r) => r.method), ["POST"]);
  await http.close();
});

Deno.test("openMcpClient() uses only the configured transport, with no fallback", async () => {
  const refusing = inProcessServer(echoServer, { streamable: false });
  const error = await assertRejects(
    () =>
      openMcpClient(settings({
        config: { url: "http://127.0.0.1:9/mcp", transport: "http" },
        fetch: refusing.fetch,
      })),
    SdkHttpError,
  );
  assertEquals(error.status, 405);
  // The server/discover probe and initialize.
  assertEquals(refusing.requests.map((r) => r.method), ["POST", "POST"]);
  const sse = await openMcpClient(settings({
    config: { url: "http://127.0.0.1:9/mcp", transport: "sse" },
    fetch: refusing.fetch,
  }));
  assertEquals(sse.kind, "sse");
  assertEquals(refusing.requests[2].method, "GET");
  await sse.client.close();
  await refusing.close();
});

Deno.test("openMcpClient() tries the preferred sse kind first, skipping Streamable HTTP", async () => {
  const http = inProcessServer(echoServer, { streamable: false });
  const opened = await openMcpClient(settings({ fetch: http.fetch }), { preferred: "sse" });
  assertEquals(opened.kind, "sse");
  assertEquals(http.requests[0].method, "GET");
  await opened.client.close();
  await http.close();
});

Deno.test("openMcpClient() with preferred sse reaches a server that now speaks only Streamable HTTP", async () => {
  const http = inProcessServer(echoServer);
  const opened = await openMcpClient(settings({ fetch: http.fetch }), { preferred: "sse" });
  assertEquals(opened.kind, "http");
  assertEquals(http.requests.slice(0, 2).map((r) => r.method), ["GET", "POST"]);
  const result = await opened.client.callTool({ name: "echo", arguments: { text: "new" } });
  assertEquals(result.content, [{ type: "text", text: "new" }]);
  await opened.client.close();
  await http.close();
});

Deno.test("openMcpClient() checks allowedHosts before any request", async () => {
  const http = inProcessServer(echoServer);
  await assertRejects(
    () =>
      openMcpClient(settings({
        config: { url: "http://api.example.com/mcp" },
        allowedHosts: ["127.0.0.1"],
        fetch: http.fetch,
      })),
    TypeError,
    'Host "api.example.com" is not in "allowedHosts"',
  );
  assertEquals(http.requests.length, 0);
  await http.close();
});

Deno.test("openMcpClient() gives up after connectTimeoutMs and closes the transport", async () => {
  const [client, silent] = InMemoryTransport.createLinkedPair();
  await silent.start();
  let closed = false;
  silent.onclose = () => closed = true;
  const error = await assertRejects(
    () =>
      openMcpClient(settings({
        connectTimeoutMs: 50,
        transportFactory: () => client as unknown as McpTransport,
      })),
    Error,
  );
  assertEquals(
    error.message,
    'Connecting to MCP server "s" did not finish within 50 ms; if it is only slow to start, raise "connectTimeoutMs" in its entry of the config (for example "connectTimeoutMs": 150)',
  );
  assertEquals(closed, true);
});

Deno.test("openMcpClient() declares elicitation only with onElicitation and forwards requests", async () => {
  const asked: unknown[] = [];
  for (const userId of [undefined, "bob"]) {
    const server = new McpServer({ name: "asker", version: "1.0.0" });
    const [client, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const opened = await openMcpClient(settings({
      userId,
      transportFactory: () => client as unknown as McpTransport,
      onElicitation: (request, signal) => {
        asked.push(request);
        assertInstanceOf(signal, AbortSignal);
        return { action: "decline" };
      },
    }));
    assertEquals(server.server.getClientCapabilities()?.elicitation, {
      form: { applyDefaults: true },
    });
    const answer = await server.server.elicitInput({
      message: "Seat?",
      requestedSchema: { type: "object", properties: { seat: { type: "string" } } },
    });
    assertEquals(answer.action, "decline");
    await opened.client.close();
  }
  const schema = { type: "object", properties: { seat: { type: "string" } } };
  assertEquals(asked, [
    { serverId: "s", message: "Seat?", requestedSchema: schema },
    { serverId: "s", userId: "bob", message: "Seat?", requestedSchema: schema },
  ]);

  const server = new McpServer({ name: "plain", version: "1.0.0" });
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const plain = await openMcpClient(settings({
    transportFactory: () => client as unknown as McpTransport,
  }));
  assertEquals(server.server.getClientCapabilities()?.elicitation, undefined);
  await plain.client.close();
});

Deno.test("openMcpClient() hands the JSON Schema validator to the client", async () => {
  const schemas: unknown[] = [];
  const server = new McpServer({ name: "typed", version: "1.0.0" });
  server.registerTool("n", { outputSchema: z.object({ n: z.number() }) }, () => ({
    content: [{ type: "text", text: "1" }],
    structuredContent: { n: 1 },
  }));
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const opened = await openMcpClient(settings({
    transportFactory: () => client as unknown as McpTransport,
    jsonSchemaValidator: {
      getValidator: <T>(schema: Record<string, unknown>) => {
        schemas.push(schema);
        return () => ({ valid: false, data: undefined, errorMessage: "always wrong" } as const);
      },
    },
  }));
  await opened.client.listTools();
  await assertRejects(
    () => opened.client.callTool({ name: "n", arguments: {} }),
    Error,
    "always wrong",
  );
  assertEquals(schemas.length, 1);
  await opened.client.close();
});

Deno.test("openMcpClient() bounds HTTP answers by maxResponseBytes", async () => {
  const http = inProcessServer(echoServer);
  const error = await assertRejects(
    () => openMcpClient(settings({ fetch: http.fetch, maxResponseBytes: 40 })),
    Error,
  );
  // The first answer (to the server/discover probe) is already too large.
  assertEquals(error.message, "The response exceeded 40 bytes and was cut");
  await http.close();
});

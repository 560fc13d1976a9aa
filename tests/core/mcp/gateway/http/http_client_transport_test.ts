import {
  assert,
  assertEquals,
  assertInstanceOf,
  assertNotEquals,
  assertRejects,
} from "@std/assert";
import { z } from "zod";
import { RequestNotDeliveredError } from "../../../../../src/core/mcp/gateway/http/guarded_fetch.ts";
import {
  HttpClientTransport,
  SessionExpiredError,
} from "../../../../../src/core/mcp/gateway/http/http_client_transport.ts";
import { Client, ProtocolError, SdkHttpError } from "../../../../../src/core/mcp/mcp_sdk.ts";
import { McpServer } from "@modelcontextprotocol/server";
import { McpErrorCode } from "../../../../../src/core/mcp/mcp_error_code.ts";
import type { Transport } from "../../../../../src/core/mcp/mcp_sdk.ts";
import {
  inProcessServer,
  type InProcessServerOptions,
  type SeenRequest,
} from "../../_in_process_http.ts";

const URL_ = new URL("http://127.0.0.1:9/mcp");

function echoServer(): McpServer {
  const server = new McpServer({ name: "echo", version: "1.0.0" });
  server.registerTool("echo", { inputSchema: z.object({ text: z.string() }) }, ({ text }) => ({
    content: [{ type: "text", text }],
  }));
  return server;
}

/** An SDK client on an HttpClientTransport to an in-process server. */
async function connect(
  options: InProcessServerOptions & { kind?: "http" | "sse"; maxBodyBytes?: number } = {},
) {
  const http = inProcessServer(echoServer, options);
  const transport = new HttpClientTransport({
    url: URL_,
    kind: options.kind ?? "http",
    headers: { "x-key": "k1" },
    fetch: http.fetch,
    maxBodyBytes: options.maxBodyBytes ?? 100_000,
  });
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(transport as unknown as Transport);
  return { http, transport, client };
}

/** Answers the POST carrying `tools/call` with `body` as an event stream. */
function answerCallWith(body: string): InProcessServerOptions["intercept"] {
  return async (request) => {
    if (request.method !== "POST" || !(await request.clone().text()).includes("tools/call")) {
      return undefined;
    }
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  };
}

/** Waits until every POST body so far was read to its end and its end was handled. */
async function settled(requests: readonly SeenRequest[]): Promise<void> {
  await Promise.all(requests.filter((r) => r.method === "POST").map((r) => r.answered));
  await new Promise((resolve) => setTimeout(resolve, 5));
}

Deno.test("SessionExpiredError names itself and says the session expired", () => {
  const error = new SessionExpiredError();
  assertEquals([error.name, error.message], [
    "SessionExpiredError",
    "The server's session expired",
  ]);
  assertEquals(new SessionExpiredError("gone").message, "gone");
  assertInstanceOf(error, Error);
});

Deno.test("HttpClientTransport carries a client over Streamable HTTP with its own headers", async () => {
  const { http, transport, client } = await connect();
  assert(transport.sessionId !== undefined && transport.sessionId.length > 0);
  const result = await client.callTool({ name: "echo", arguments: { text: "hi" } });
  assertEquals(result.content, [{ type: "text", text: "hi" }]);
  assert(http.requests.every((r) => r.headers.get("x-key") === "k1"));
  const after = http.requests.filter((r) => r.body.includes("tools/call"));
  assertNotEquals(after[0].headers.get("mcp-protocol-version"), null);
  assertEquals(after[0].headers.get("mcp-session-id"), transport.sessionId);
  await client.close();
  await http.close();
});

Deno.test("HttpClientTransport close() ends the session and reports onclose once", async () => {
  const { http, transport, client } = await connect();
  const sessionId = transport.sessionId;
  let closes = 0;
  const onclose = transport.onclose;
  transport.onclose = () => {
    closes++;
    onclose?.();
  };
  await transport.close();
  await transport.close();
  assertEquals(closes, 1);
  const deletes = http.requests.filter((r) => r.method === "DELETE");
  assertEquals(deletes.map((r) => r.headers.get("mcp-session-id")), [sessionId!]);
  await client.close();
  await http.close();
});

Deno.test("HttpClientTransport refuses a host outside allowedHosts before sending", async () => {
  const http = inProcessServer(echoServer);
  const transport = new HttpClientTransport({
    url: new URL("http://api.example.com/mcp"),
    kind: "http",
    fetch: http.fetch,
    allowedHosts: ["*.example.org"],
    maxBodyBytes: 1000,
  });
  await transport.start();
  await assertRejects(
    () => transport.send({ jsonrpc: "2.0", id: 1, method: "ping" }),
    TypeError,
    'Host "api.example.com" is not in "allowedHosts"',
  );
  assertEquals(http.requests.length, 0);
  await transport.close();
  await http.close();
});

Deno.test("HttpClientTransport turns HTTP 404 on a session into SessionExpiredError", async () => {
  let expired = false;
  const { http, transport, client } = await connect({
    intercept: (request) =>
      expired && request.method === "POST" ? new Response("gone", { status: 404 }) : undefined,
  });
  expired = true;
  await assertRejects(
    () => client.callTool({ name: "echo", arguments: { text: "x" } }),
    SessionExpiredError,
    "The server's session expired",
  );
  assert(transport.sessionId !== undefined);
  await client.close();
  await http.close();
});

Deno.test("HttpClientTransport passes a 404 without a session on as SdkHttpError", async () => {
  const http = inProcessServer(echoServer, { streamable: false, sse: false, refuseWith: 404 });
  const transport = new HttpClientTransport({
    url: URL_,
    kind: "http",
    fetch: http.fetch,
    maxBodyBytes: 1000,
  });
  await transport.start();
  const error = await assertRejects(
    () => transport.send({ jsonrpc: "2.0", id: 1, method: "ping" }),
    SdkHttpError,
  );
  assertEquals(error.status, 404);
  await transport.close();
  await http.close();
});

Deno.test("HttpClientTransport fails a call at once when its stream ends without an answer", async () => {
  const { http, client } = await connect({ intercept: answerCallWith("") });
  const error = await assertRejects(
    () => client.callTool({ name: "echo", arguments: { text: "x" } }),
    ProtocolError,
  );
  assertEquals(error.code, McpErrorCode.ConnectionClosed);
  assertEquals(
    { code: (error as { code?: unknown }).code, message: error.message },
    { code: -32000, message: "The server closed the connection" },
  );
  const again = await client.ping();
  assertEquals(again, {});
  await client.close();
  await http.close();
});

Deno.test("HttpClientTransport fails a call whose answer is malformed and reports the parse error", async () => {
  const { http, transport, client } = await connect({
    intercept: answerCallWith("event: message\ndata: {not json\n\n"),
  });
  // Bodies of earlier requests end first here; the next test covers them ending meanwhile.
  await settled(http.requests);
  const errors: Error[] = [];
  const onerror = transport.onerror;
  transport.onerror = (error) => {
    errors.push(error);
    onerror?.(error);
  };
  const error = await assertRejects(
    () => client.callTool({ name: "echo", arguments: { text: "x" } }),
    ProtocolError,
  );
  assertEquals(error.code, McpErrorCode.InternalError);
  assertEquals(
    { code: (error as { code?: unknown }).code, message: error.message },
    { code: -32603, message: "The server sent a malformed answer" },
  );
  assert(errors.some((e) => e instanceof SyntaxError));
  await client.close();
  await http.close();
});

Deno.test("HttpClientTransport reports a malformed answer as malformed while other bodies end", async () => {
  const answers = [
    ["event: message\ndata: {not json\n\n", "text/event-stream"],
    ['{"not json', "application/json"],
    ["", "text/event-stream"],
  ];
  const { http, client } = await connect({
    intercept: async (request) => {
      if (request.method !== "POST" || !(await request.clone().text()).includes("tools/call")) {
        return undefined;
      }
      const [body, type] = answers.shift()!;
      return new Response(body, { headers: { "content-type": type } });
    },
  });
  // No wait: the initialize answer's body ends after the malformed event was parsed.
  const call = () => client.callTool({ name: "echo", arguments: { text: "x" } });
  const malformed = await assertRejects(call, ProtocolError);
  assertEquals(
    { code: (malformed as { code?: unknown }).code, message: malformed.message },
    { code: -32603, message: "The server sent a malformed answer" },
  );
  // A malformed JSON answer fails its own call and is not held against the next one.
  const json = await assertRejects(call, Error);
  assertEquals(
    { code: (json as { code?: unknown }).code, message: json.message },
    { code: -32603, message: "MCP error -32603: The server sent a malformed answer" },
  );
  const closed = await assertRejects(call, ProtocolError);
  assertEquals(
    { code: (closed as { code?: unknown }).code, message: closed.message },
    { code: -32000, message: "The server closed the connection" },
  );
  await client.close();
  await http.close();
});

Deno.test("HttpClientTransport fails a call whose answer is over maxBodyBytes", async () => {
  const { http, client } = await connect({
    maxBodyBytes: 3000,
    intercept: answerCallWith(`event: message\ndata: ${"x".repeat(5000)}\n\n`),
  });
  const error = await assertRejects(
    () => client.callTool({ name: "echo", arguments: { text: "x" } }),
    ProtocolError,
  );
  assertEquals(error.code, McpErrorCode.InternalError);
  assertEquals(
    { code: (error as { code?: unknown }).code, message: error.message },
    { code: -32603, message: "The server's answer is larger than 3000 bytes" },
  );
  await client.close();
  await http.close();
});

Deno.test("HttpClientTransport speaks HTTP+SSE, has no session id, and reports a lost event stream", async () => {
  const { http, transport, client } = await connect({ kind: "sse", streamable: false });
  assertEquals(transport.sessionId, undefined);
  const result = await client.callTool({ name: "echo", arguments: { text: "sse" } });
  assertEquals(result.content, [{ type: "text", text: "sse" }]);
  assertEquals(http.requests[0].headers.get("accept"), "text/event-stream");
  assertEquals(http.requests[0].headers.get("x-key"), "k1");
  const errors: string[] = [];
  const closed = Promise.withResolvers<void>();
  transport.onerror = (error) => errors.push(error.message);
  transport.onclose = () => closed.resolve();
  await http.close();
  await closed.promise;
  assert(errors.includes("The server closed the event stream"), errors.join(" | "));
  await client.close();
});

Deno.test("HttpClientTransport refuses to send after close() with RequestNotDeliveredError", async () => {
  const { http, transport, client } = await connect();
  await transport.close();
  const before = http.requests.length;
  await assertRejects(
    () => transport.send({ jsonrpc: "2.0", id: 99, method: "ping" }),
    RequestNotDeliveredError,
    "The connection is closed",
  );
  assertEquals(http.requests.length, before);
  await client.close();
  await http.close();
});

Deno.test("HttpClientTransport opens a standing event stream only with a session, or when told always", async () => {
  const gets = async (options: InProcessServerOptions, eventStream?: "session" | "always") => {
    const http = inProcessServer(echoServer, options);
    const transport = new HttpClientTransport({
      url: URL_,
      kind: "http",
      fetch: http.fetch,
      maxBodyBytes: 100_000,
      eventStream,
    });
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(transport as unknown as Transport);
    assertEquals((await client.callTool({ name: "echo", arguments: { text: "hi" } })).content, [
      { type: "text", text: "hi" },
    ]);
    await new Promise((resolve) => setTimeout(resolve, 20)); // the SDK opens it after initialize
    const count = http.requests.filter((r) => r.method === "GET").length;
    await client.close();
    await http.close();
    return count;
  };
  assertEquals(await gets({ stateless: true }), 0);
  assertEquals(await gets({ stateless: true }, "always"), 1);
  assertEquals(await gets({}), 1);
});

Deno.test("HttpClientTransport fails a call at once when a whole JSON answer lacks its response", async () => {
  let intercepted = 0;
  const { http, client } = await connect({
    stateless: true,
    intercept: async (request) => {
      if (request.method !== "POST" || !(await request.clone().text()).includes('"x"')) {
        return undefined;
      }
      intercepted++;
      const body = '{"jsonrpc":"2.0","id":"someone-else","result":{"content":[]}}';
      return new Response(body, {
        headers: { "content-type": "application/json", "content-length": String(body.length) },
      });
    },
  });
  const started = Date.now();
  const error = await assertRejects(
    () => client.callTool({ name: "echo", arguments: { text: "x" } }, { timeout: 5000 }),
    ProtocolError,
  );
  assertEquals(error.code, McpErrorCode.ConnectionClosed);
  assert(Date.now() - started < 4000, "failed at once, not at the deadline");
  assertEquals(intercepted, 1);
  assertEquals(
    (await client.callTool({ name: "echo", arguments: { text: "ok" } })).isError,
    undefined,
  );
  await client.close();
  await http.close();
});

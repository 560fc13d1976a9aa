import { assert, assertEquals, assertInstanceOf, assertRejects } from "@std/assert";
import { z } from "zod";
import {
  HttpClientTransport,
  SessionExpiredError,
} from "../../../../../src/core/mcp/gateway/http/http_client_transport.ts";
import { McpRpcError } from "../../../../../src/core/mcp/mcp_error_code.ts";
import { Client } from "../../../../../src/core/mcp/mcp_sdk.ts";
import { McpServer } from "@modelcontextprotocol/server";
import { McpErrorCode } from "../../../../../src/core/mcp/mcp_error_code.ts";
import type { Transport } from "../../../../../src/core/mcp/mcp_sdk.ts";
import { inProcessServer, type InProcessServerOptions } from "../../_in_process_http.ts";

function server(): McpServer {
  const mcp = new McpServer({ name: "s", version: "1" }, { capabilities: { logging: {} } });
  mcp.registerTool("echo", { inputSchema: z.object({ text: z.string() }) }, ({ text }) => ({
    content: [{ type: "text", text }],
  }));
  mcp.registerTool("steps", { inputSchema: z.object({ n: z.number() }) }, async ({ n }, extra) => {
    for (let i = 1; i <= n; i++) {
      await new Promise((resolve) => setTimeout(resolve, 15));
      if (extra.mcpReq.signal.aborted) break;
      await extra.mcpReq.notify({
        method: "notifications/message",
        params: { level: "info", data: `step ${i}` },
      });
      const token = extra.mcpReq._meta?.progressToken;
      if (token !== undefined) {
        await extra.mcpReq.notify({
          method: "notifications/progress",
          params: { progressToken: token, progress: i, total: n },
        });
      }
    }
    return { content: [{ type: "text", text: `${n} steps` }] };
  });
  return mcp;
}

async function connect(options: InProcessServerOptions & { maxBodyBytes?: number } = {}) {
  const http = inProcessServer(server, options);
  const transport = new HttpClientTransport({
    url: new URL("http://127.0.0.1:9/mcp"),
    kind: "http",
    fetch: http.fetch,
    maxBodyBytes: options.maxBodyBytes ?? 100_000,
  });
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(transport as unknown as Transport);
  return { http, transport, client };
}

const call = (name: string, args: Record<string, unknown>) => ({
  method: "tools/call",
  params: { name, arguments: args },
});

Deno.test("HttpClientTransport.request() calls a tool over SSE and over plain JSON, past the SDK client", async () => {
  for (const stateless of [false, true]) {
    const { http, transport, client } = await connect({ stateless });
    try {
      assert(transport.direct);
      const result = await transport.request(call("echo", { text: "hi" }), { timeout: 5000 });
      assertEquals(result.content, [{ type: "text", text: "hi" }]);
      const post = http.requests.findLast((r) => r.body.includes('"tools/call"'))!;
      // An id from the range the SDK client does not use, and the session's headers.
      assert(JSON.parse(post.body).id >= 2 ** 29);
      assertEquals(post.headers.get("mcp-session-id") ?? undefined, transport.sessionId);
      assert(post.headers.get("mcp-protocol-version"));
    } finally {
      await client.close();
      await http.close();
    }
  }
});

Deno.test("HttpClientTransport.request() relays progress, restarts the deadline with it, and forwards logs to the client", async () => {
  const { http, transport, client } = await connect();
  try {
    const logs: unknown[] = [];
    client.setNotificationHandler("notifications/message", (n) => {
      logs.push(n.params.data);
    });
    const progress: number[] = [];
    const result = await transport.request(call("steps", { n: 6 }), {
      timeout: 50,
      resetTimeoutOnProgress: true,
      onprogress: (p) => progress.push(p.progress),
    });
    assertEquals(result.content, [{ type: "text", text: "6 steps" }]);
    assertEquals(progress, [1, 2, 3, 4, 5, 6]);
    assertEquals(logs.length, 6);
  } finally {
    await client.close();
    await http.close();
  }
});

Deno.test("HttpClientTransport.request() ends at its deadline, hard or not, and tells the server", async () => {
  const { http, transport, client } = await connect();
  try {
    const soft = await assertRejects(
      () => transport.request(call("steps", { n: 20 }), { timeout: 40 }),
      McpRpcError,
    );
    assertEquals([soft.code, soft.data], [McpErrorCode.RequestTimeout, { timeout: 40 }]);
    const hard = await assertRejects(
      () =>
        transport.request(call("steps", { n: 50 }), {
          timeout: 100,
          resetTimeoutOnProgress: true,
          maxTotalTimeout: 120,
          onprogress: () => {},
        }),
      McpRpcError,
    );
    assertEquals(hard.code, McpErrorCode.RequestTimeout);
    assertEquals((hard.data as { maxTotalTimeout: number }).maxTotalTimeout, 120);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const cancelled = http.requests.filter((r) => r.body.includes("notifications/cancelled"));
    assertEquals(cancelled.length, 2);
    const reason = new Error("stop");
    const aborted = transport.request(call("steps", { n: 20 }), {
      signal: AbortSignal.abort(reason),
    });
    assertEquals(await assertRejects(() => aborted), reason);
  } finally {
    await client.close();
    await http.close();
  }
});

Deno.test("HttpClientTransport.request() ends at once when the transport closes, over SSE and over plain JSON", async () => {
  for (const stateless of [false, true]) {
    const { http, transport, client } = await connect({ stateless });
    try {
      const started = performance.now();
      const pending = transport.request(call("steps", { n: 200 }), { timeout: 60_000 });
      await new Promise((resolve) => setTimeout(resolve, 30));
      await transport.close();
      const error = await assertRejects(() => pending, McpRpcError);
      assertEquals(error.code, McpErrorCode.ConnectionClosed);
      // Not at the 60 s deadline, nor after the 3 s the server would take.
      assert(performance.now() - started < 2000, `ended after ${performance.now() - started} ms`);
    } finally {
      await client.close();
      await http.close();
    }
  }
});

Deno.test("HttpClientTransport.request() fails at once on an unanswered, malformed or oversized answer", async () => {
  const answers: [string, string][] = [
    ["", "text/event-stream"],
    ['event: message\ndata: {"jsonrpc":"2.0","nonsense":true}\n\n', "text/event-stream"],
    ["{ not json", "application/json"],
    [`event: message\ndata: ${"x".repeat(5000)}\n\n`, "text/event-stream"],
  ];
  const { http, transport, client } = await connect({
    maxBodyBytes: 3000,
    intercept: async (request) => {
      if (request.method !== "POST" || !(await request.clone().text()).includes("tools/call")) {
        return undefined;
      }
      const [body, type] = answers.shift()!;
      return new Response(body, { headers: { "content-type": type } });
    },
  });
  const errors: Error[] = [];
  transport.onerror = (error) => errors.push(error);
  try {
    const fail = async () =>
      await assertRejects(() => transport.request(call("echo", { text: "x" })), McpRpcError);
    assertEquals((await fail()).message, "MCP error -32000: The server closed the connection");
    assertEquals((await fail()).message, "MCP error -32603: The server sent a malformed answer");
    assertEquals((await fail()).message, "MCP error -32603: The server sent a malformed answer");
    assertEquals(
      (await fail()).message,
      "MCP error -32603: The server's answer is larger than 3000 bytes",
    );
    assertEquals(errors.filter((e) => e instanceof SyntaxError).length, 2);
  } finally {
    await client.close();
    await http.close();
  }
});

Deno.test("HttpClientTransport.request() turns HTTP 404 on a session into SessionExpiredError", async () => {
  const { http, transport, client } = await connect({
    intercept: async (request) =>
      request.method === "POST" && (await request.clone().text()).includes("tools/call")
        ? new Response("gone", { status: 404 })
        : undefined,
  });
  try {
    const error = await assertRejects(() => transport.request(call("echo", { text: "x" })));
    assertInstanceOf(error, SessionExpiredError);
  } finally {
    await client.close();
    await http.close();
  }
});

Deno.test("HttpClientTransport.request() reads event streams with LF, CRLF or CR line ends, in any chunks", async () => {
  const answer = (id: number, ending: string) =>
    [
      ": comment",
      "event: message",
      `data: {"jsonrpc":"2.0","id":${id},`,
      `data: "result":{"content":[{"type":"text","text":"ok"}]}}`,
      "",
      "",
    ].join(ending);
  for (const ending of ["\n", "\r\n", "\r"]) {
    const { http, transport, client } = await connect({
      intercept: async (request) => {
        if (request.method !== "POST") return undefined;
        const body = await request.clone().text();
        if (!body.includes("tools/call")) return undefined;
        const bytes = new TextEncoder().encode(answer(JSON.parse(body).id, ending));
        // One byte per chunk: every line end is split somewhere.
        const stream = new ReadableStream<Uint8Array>({
          start(controller) {
            for (const byte of bytes) controller.enqueue(new Uint8Array([byte]));
            controller.close();
          },
        });
        return new Response(stream, { headers: { "content-type": "text/event-stream" } });
      },
    });
    try {
      const result = await transport.request(call("echo", { text: "x" }));
      assertEquals(result.content, [{ type: "text", text: "ok" }], JSON.stringify(ending));
    } finally {
      await client.close();
      await http.close();
    }
  }
});

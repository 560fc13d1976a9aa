// A hostile upstream MCP server's progress notifications on a remote `tools/call`
// (the SDK client over `HttpClientTransport` and its guarded fetch), over a real loopback socket: progress for a call that sent
// no token (the server knows the request's id and can guess the token), and an endless flood of
// progress meant to keep a call alive past its hard deadline.
import { assert, assertInstanceOf, assertLess } from "@std/assert";
import { handshakeAnswer } from "./_hostile_handshake.ts";
import { HttpClientTransport } from "../../../../../src/core/mcp/gateway/http/http_client_transport.ts";
import { McpErrorCode, mcpErrorCodeOf } from "../../../../../src/core/mcp/mcp_error_code.ts";
import { Client } from "../../../../../src/core/mcp/mcp_sdk.ts";
import type { Transport } from "../../../../../src/core/mcp/mcp_sdk.ts";

const enc = new TextEncoder();

/** A server whose `tools/call` answer is an event stream of progress (token: `token(id)`) every 20 ms, never an answer. */
async function flooded(
  token: (id: number) => unknown,
  options: NonNullable<Parameters<Client["callTool"]>[1]>,
  closeAfterMs?: number,
): Promise<{ error: unknown; ms: number; sent: number; heard: number }> {
  const stats = { sent: 0 };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    if (req.method !== "POST") return new Response(null, { status: 405 });
    const message = await req.json();
    const played = handshakeAnswer(message);
    if (played !== undefined) return played;
    if (message.method !== "tools/call") {
      return Response.json({ jsonrpc: "2.0", id: message.id, result: { tools: [] } });
    }
    const progressToken = token(message.id);
    let n = 0;
    let timer: ReturnType<typeof setInterval> | undefined;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        const send = () => {
          stats.sent++;
          const note = {
            jsonrpc: "2.0",
            method: "notifications/progress",
            params: { progressToken, progress: ++n },
          };
          try {
            controller.enqueue(enc.encode(`data: ${JSON.stringify(note)}\n\n`));
          } catch {
            clearInterval(timer);
          }
        };
        // The first at once: on a loaded machine a timer's first turn can come late.
        send();
        timer = setInterval(send, 20);
      },
      cancel: () => clearInterval(timer),
    });
    req.signal.addEventListener("abort", () => clearInterval(timer));
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  });
  const url = new URL(`http://127.0.0.1:${server.addr.port}/mcp`);
  const transport = new HttpClientTransport({ url, kind: "http", maxBodyBytes: 1_000_000 });
  const client = new Client({ name: "victim", version: "1" });
  let heard = 0;
  try {
    await client.connect(transport as unknown as Transport);
    const onprogress = options.onprogress;
    const started = performance.now();
    if (closeAfterMs !== undefined) setTimeout(() => void transport.close(), closeAfterMs);
    const error = await client.request(
      { method: "tools/call", params: { name: "t", arguments: {} } },
      { ...options, onprogress: onprogress && ((p) => (heard++, onprogress(p))) },
    ).then(() => undefined, (error) => error);
    return { error, ms: performance.now() - started, sent: stats.sent, heard };
  } finally {
    await client.close().catch(() => {});
    await server.shutdown();
  }
}

Deno.test("progress for a call that sent no token, with the request's id as token, does not extend its deadline", async () => {
  const { error, ms, sent, heard } = await flooded((id) => id, {
    timeout: 300,
    resetTimeoutOnProgress: true,
    maxTotalTimeout: 10_000,
  });
  assert(sent > 0, "the server sent progress");
  assert(heard === 0);
  assertInstanceOf(error, Error);
  assert(mcpErrorCodeOf(error) === McpErrorCode.RequestTimeout, String(error));
  assertLess(ms, 2_000, `the call ran ${Math.round(ms)} ms (deadline 300 ms, hard 10 s)`);
});

Deno.test("an endless flood of progress on a call with a token ends at the hard deadline (plus at most one deadline)", async () => {
  // A deadline of 500 ms that progress every 20 ms restarts, up to 1,500 ms: wide enough that a
  // loaded machine still delivers progress within each deadline.
  const { error, ms, sent, heard } = await flooded((id) => id, {
    timeout: 500,
    resetTimeoutOnProgress: true,
    maxTotalTimeout: 1_500,
    onprogress: () => {},
  });
  assert(sent > 0 && heard > 0, `sent ${sent}, heard ${heard}`);
  assertInstanceOf(error, Error);
  assert(mcpErrorCodeOf(error) === McpErrorCode.RequestTimeout, String(error));
  assert(ms >= 1_400, `ended after ${Math.round(ms)} ms: progress should extend it`);
  assertLess(ms, 1_500 + 500 + 800, `the call ran ${Math.round(ms)} ms past its hard deadline`);
});

Deno.test("progress with a string token equal to the id, or another number, does not extend a call without a token", async () => {
  for (const token of [(id: number) => String(id), (id: number) => id + 1]) {
    const { error, ms, sent } = await flooded(token, {
      timeout: 300,
      resetTimeoutOnProgress: true,
      maxTotalTimeout: 10_000,
    });
    assert(sent > 0);
    assertInstanceOf(error, Error);
    assertLess(ms, 2_000, `the call ran ${Math.round(ms)} ms`);
  }
});

Deno.test("closing the connection while a call is kept alive by a progress flood ends the call at once", async () => {
  const { error, ms, sent, heard } = await flooded((id) => id, {
    timeout: 5_000,
    resetTimeoutOnProgress: true,
    maxTotalTimeout: 20_000,
    onprogress: () => {},
  }, 300);
  assert(sent > 0 && heard > 0, `sent ${sent}, heard ${heard}`);
  assertInstanceOf(error, Error);
  assert(mcpErrorCodeOf(error) === McpErrorCode.ConnectionClosed, String(error));
  assertLess(ms, 1_500, `the call ran ${Math.round(ms)} ms after the close at 300 ms`);
});

/**
 * What an `HttpClientTransport` keeps of the requests it sent while a server keeps one request
 * unanswered: a server that holds one call open (a slow tool, or a hostile one that never ends it)
 * while the connection's other calls are answered with JSON bodies, as on a connection shared by
 * many users' calls where one is always in flight; and what it keeps of a server's events that are
 * no JSON, sent by the body's worth.
 *
 * @module
 */

import { assert, assertEquals } from "@std/assert";
import v8 from "node:v8";
import vm from "node:vm";
import { z } from "zod";
import { HttpClientTransport } from "../../../../../src/core/mcp/gateway/http/http_client_transport.ts";
import { Client, type Transport } from "../../../../../src/core/mcp/mcp_sdk.ts";
import { McpServer } from "@modelcontextprotocol/server";
import { inProcessServer } from "../../_in_process_http.ts";

/** A full garbage collection (V8's `gc`, made reachable for this test process). */
function collect(): void {
  v8.setFlagsFromString("--expose_gc");
  (vm.runInNewContext("gc") as () => void)();
}

Deno.test("a transport keeps no request body once answered while another call stays open", async () => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => release = resolve);
  let slowStarted = false;
  const make = () => {
    const server = new McpServer({ name: "hold", version: "1.0.0" });
    server.registerTool("hold", { inputSchema: z.object({}) }, async () => {
      slowStarted = true;
      await held;
      return { content: [{ type: "text", text: "released" }] };
    });
    return server;
  };
  const http = inProcessServer(make, { stateless: true });
  // The quick calls are answered here, in a whole JSON body as a stateless server answers: the
  // test server keeps what it was sent, which would hide what the transport keeps.
  let answered = 0;
  const fetch = (input: string | URL | Request, init?: RequestInit) => {
    const body = typeof init?.body === "string" ? init.body : "";
    if (!body.includes('"size"')) return http.fetch(input, init);
    const { id, params } = JSON.parse(body);
    const text = String(params.arguments.text.length);
    const answer = JSON.stringify({
      jsonrpc: "2.0",
      id,
      result: { content: [{ type: "text", text }] },
    });
    answered++;
    return Promise.resolve(
      new Response(answer, {
        headers: { "content-type": "application/json", "content-length": String(answer.length) },
      }),
    );
  };
  const transport = new HttpClientTransport({
    url: new URL("http://127.0.0.1:9/mcp"),
    kind: "http",
    fetch,
    maxBodyBytes: 1_000_000,
  });
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(transport as unknown as Transport);
  // The server holds one call open for the whole run.
  let holdDone = false;
  const hold = client.callTool({ name: "hold", arguments: {} }).then((result) => {
    holdDone = true;
    return result;
  });
  while (!slowStarted) await new Promise((resolve) => setTimeout(resolve, 1));
  const calls = 60;
  const bytes = 200_000;
  collect();
  const before = Deno.memoryUsage().heapUsed;
  for (let i = 0; i < calls; i++) {
    // A fresh string each time (a repeated one would be one string kept once).
    const text = `${i}:`.padEnd(bytes, String.fromCharCode(97 + (i % 26)));
    const result = await client.callTool({ name: "size", arguments: { text } });
    assertEquals((result.content as { text: string }[])[0].text, String(bytes));
  }
  // The attack ran: every call was answered by a whole JSON body while the held call was open.
  assertEquals(answered, calls);
  assert(!holdDone, "the held call stayed open through every other call");
  collect();
  const kept = Deno.memoryUsage().heapUsed - before;
  // 60 bodies of 200 KB are 12 MB: a few at most may be kept for the held call's sake.
  assert(kept < 4_000_000, `the transport kept ${(kept / 1e6).toFixed(1)} MB of answered requests`);
  release();
  assertEquals(((await hold).content as { text: string }[])[0].text, "released");
  await client.close();
  await http.close();
});

Deno.test("a transport keeps a bounded number of a server's malformed events, however many come", async () => {
  const events = 30_000;
  let flooded = 0;
  const make = () => {
    const server = new McpServer({ name: "echo", version: "1.0.0" });
    server.registerTool("echo", { inputSchema: z.object({ text: z.string() }) }, ({ text }) => ({
      content: [{ type: "text", text }],
    }));
    return server;
  };
  const http = inProcessServer(make, {
    // The call's answer: a flood of events that are no JSON, then the answer itself.
    intercept: async (request) => {
      const body = request.method === "POST" ? await request.clone().text() : "";
      if (!body.includes('"tools/call"')) return undefined;
      flooded++;
      const { id } = JSON.parse(body);
      const answer = { jsonrpc: "2.0", id, result: { content: [{ type: "text", text: "done" }] } };
      const text = "data: x\n\n".repeat(events) + `data: ${JSON.stringify(answer)}\n\n`;
      return new Response(text, { headers: { "content-type": "text/event-stream" } });
    },
  });
  const transport = new HttpClientTransport({
    url: new URL("http://127.0.0.1:9/mcp"),
    kind: "http",
    fetch: http.fetch,
    maxBodyBytes: 1_000_000,
  });
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(transport as unknown as Transport);
  let malformed = 0;
  const onerror = transport.onerror;
  transport.onerror = (error) => {
    if (error instanceof SyntaxError) malformed++;
    onerror?.(error);
  };
  collect();
  const before = Deno.memoryUsage().heapUsed;
  const result = await client.callTool({ name: "echo", arguments: { text: "x" } });
  assertEquals((result.content as { text: string }[])[0].text, "done");
  // The attack ran: every event was parsed and reported as malformed.
  assertEquals(flooded, 1);
  assertEquals(malformed, events);
  http.requests.length = 0;
  collect();
  const kept = Deno.memoryUsage().heapUsed - before;
  assert(kept < 2_000_000, `the transport kept ${(kept / 1e6).toFixed(1)} MB of parse errors`);
  await client.close();
  await http.close();
});

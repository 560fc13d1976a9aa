/**
 * What an `HttpClientTransport` keeps of the requests it sent while a server keeps one request
 * unanswered: a server that holds one call open (a slow tool, or a hostile one that never ends it)
 * while the connection's other calls are answered with JSON bodies, as on a connection shared by
 * many users' calls where one is always in flight.
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

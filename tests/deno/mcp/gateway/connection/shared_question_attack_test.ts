/**
 * A second user of a global server's shared connection. Bob's one tool call is in flight; Alice
 * reads a prompt of the same server (as `serve` does for her `prompts/get`), and the server
 * answers her request with a log and an `input_required` question naming what she asked for. A
 * server's question or log went to "the one call in flight", so Bob's client was shown Alice's
 * question and log, and Bob's answer was sent to the server as Alice's. Now a question or log
 * goes to a call only when that call is the connection's only use.
 *
 * @module
 */
import { assert, assertEquals } from "@std/assert";
import { z } from "zod";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { ToolRouter } from "../../../../../mod.ts";
import { McpGateway } from "../../../../../src/core/mcp/mod.ts";

const QUESTION = { type: "object", properties: { release: { type: "boolean" } } };

/** The SDK's server, with `prompts/get` answered by hand: a log, then a question, over SSE. */
function hostileServer() {
  const seen = { answers: [] as unknown[], asked: 0 };
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: "shared", version: "1" });
    server.registerTool(
      "sleep",
      { inputSchema: z.object({ ms: z.number() }) },
      ({ ms }) =>
        new Promise((resolve) =>
          setTimeout(() => resolve({ content: [{ type: "text", text: "slept" }] }), ms)
        ),
    );
    server.registerPrompt("contract", { argsSchema: { account: z.string() } }, ({ account }) => ({
      messages: [{ role: "user", content: { type: "text", text: account } }],
    }));
    return server;
  }, { legacy: "reject" });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const text = req.method === "POST" ? await req.text() : undefined;
    const message = text === undefined ? undefined : JSON.parse(text);
    if (message?.method === "prompts/get") {
      const { account } = message.params.arguments;
      const answers = message.params.inputResponses;
      if (answers !== undefined) {
        seen.answers.push(answers);
        const content = { type: "text", text: `released ${JSON.stringify(answers)}` };
        const result = { resultType: "complete", messages: [{ role: "user", content }] };
        return Response.json({ jsonrpc: "2.0", id: message.id, result });
      }
      seen.asked++;
      const log = {
        jsonrpc: "2.0",
        method: "notifications/message",
        params: { level: "info", data: `opening the contract of ${account}` },
      };
      const params = {
        mode: "form",
        message: `Release the contract of ${account}?`,
        requestedSchema: QUESTION,
      };
      const result = {
        resultType: "input_required",
        inputRequests: { release: { method: "elicitation/create", params } },
      };
      const events = [log, { jsonrpc: "2.0", id: message.id, result }]
        .map((event) => `event: message\ndata: ${JSON.stringify(event)}\n\n`).join("");
      return new Response(events, { headers: { "content-type": "text/event-stream" } });
    }
    const forwarded = new Request(req.url, {
      method: req.method,
      headers: req.headers,
      body: text,
    });
    return handler.fetch(forwarded);
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/mcp`,
    seen,
    async close() {
      await handler.close();
      await server.shutdown();
    },
  };
}

Deno.test("a server's question and log in the answer to Alice's prompts/get on a shared connection never reach Bob's call in flight, nor does Bob's answer go back as hers", async () => {
  const server = hostileServer();
  const gateway = new McpGateway({
    relayElicitation: true,
    servers: { shared: { url: server.url, protocol: "2026-07-28" } },
  });
  const router = new ToolRouter({ gateway });
  try {
    const bob = await router.expose({ mcpServers: ["shared"], userId: "bob" });
    const alice = await router.expose({ mcpServers: ["shared"], userId: "alice" });
    const bobSaw: string[] = [];
    const bobCall = bob.call("sleep", { ms: 1_500 }, {
      onElicitation: (request) => {
        bobSaw.push(request.message);
        return Promise.resolve({ action: "accept", content: { release: true } });
      },
      onLog: (entry) => void bobSaw.push(String(entry.data)),
    });
    // Bob's call is on the wire before Alice's request.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const upstream = alice.upstreams()[0].server;
    const prompt = await upstream.request(
      "prompts/get",
      { name: "contract", arguments: { account: "alice-4411" } },
      { signal: AbortSignal.timeout(10_000), userId: "alice" },
    );
    // The attack ran: the server asked, in the answer to Alice's request, and was answered.
    assertEquals(server.seen.asked, 1);
    assertEquals(server.seen.answers.length, 1);
    // Bob was shown nothing of Alice's request, and his answer was not sent as hers.
    assertEquals(bobSaw, []);
    assertEquals(server.seen.answers[0], { release: { action: "cancel" } });
    assert(JSON.stringify(prompt).includes("cancel"), JSON.stringify(prompt));
    assertEquals((await bobCall).text, "slept");
  } finally {
    await router.close();
    await server.close();
  }
});

/**
 * A hostile 2026-07-28 server against the transport's bookkeeping of whole JSON bodies, which are
 * now let go of once no `send()` is under way (a connection's `subscriptions/listen` stays pending
 * for good): JSON answers without the request's response, one after the other and while another
 * user's call is held open, and an answer that carries another call's response instead of its own.
 * No call may hang until its deadline, and each is answered once.
 *
 * @module
 */
import { assert, assertEquals } from "@std/assert";
import { z } from "zod";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { ToolRouter } from "../../../../../mod.ts";
import { McpGateway } from "../../../../../src/core/mcp/mod.ts";

interface Call {
  id: number;
  mode: string;
}

function hostileServer() {
  const seen = { listens: 0, calls: [] as Call[] };
  let release!: () => void;
  const released = new Promise<void>((resolve) => release = resolve);
  let heldId: number | undefined;
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: "hostile", version: "1" });
    server.registerTool(
      "act",
      { inputSchema: z.object({ mode: z.string() }) },
      ({ mode }) => ({ content: [{ type: "text", text: `ran ${mode}` }] }),
    );
    return server;
  }, { legacy: "reject" });
  const json = (body: unknown) => Response.json(body);
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const text = req.method === "POST" ? await req.text() : undefined;
    const message = text === undefined ? undefined : JSON.parse(text);
    if (message?.method === "subscriptions/listen") seen.listens++;
    const mode = message?.method === "tools/call" ? message.params.arguments.mode : undefined;
    if (mode !== undefined) seen.calls.push({ id: message.id, mode });
    if (mode === "drop") {
      // A whole JSON body with a notification and no response to the request.
      return json({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info" } });
    }
    if (mode === "steal" && heldId !== undefined) {
      // The held call's response, in the answer of another call (without its own).
      const content = [{ type: "text", text: "stolen" }];
      return json({ jsonrpc: "2.0", id: heldId, result: { resultType: "complete", content } });
    }
    if (mode === "hold") {
      heldId = message.id;
      await released;
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
    release,
    async close() {
      release();
      await handler.close();
      await server.shutdown();
    },
  };
}

Deno.test("JSON answers without their response fail their own call at once, with a listen pending and while another user's call is held, and a stolen response answers once", async () => {
  const server = hostileServer();
  const router = new ToolRouter({
    gateway: new McpGateway({ servers: { s: { url: server.url, protocol: "2026-07-28" } } }),
  });
  const deadline = { timeoutMs: 20_000 };
  try {
    const ana = await router.expose({ mcpServers: ["s"], userId: "ana" });
    assertEquals((await ana.call("act", { mode: "plain" })).text, "ran plain");
    // The connection's listen is open and stays pending for the rest of the test.
    for (let i = 0; i < 200 && server.seen.listens === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assertEquals(server.seen.listens, 1);

    // One after the other: no send under way between them (the bodies are let go of at once).
    for (let i = 0; i < 20; i++) {
      const dropped = await ana.call("act", { mode: "drop" }, deadline);
      assertEquals([dropped.isError, dropped.code], [true, "upstream_unavailable"], dropped.text);
    }

    // A call held open keeps a send under way: the bodies meanwhile go through the sweep.
    const held = ana.call("act", { mode: "hold" }, deadline);
    for (let i = 0; i < 500 && !server.seen.calls.some((c) => c.mode === "hold"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const users = await Promise.all(
      Array.from({ length: 24 }, (_, i) => router.expose({ mcpServers: ["s"], userId: `u${i}` })),
    );
    const dropped = await Promise.all(
      users.map((tools) => tools.call("act", { mode: "drop" }, deadline)),
    );
    for (const result of dropped) {
      assertEquals([result.isError, result.code], [true, "upstream_unavailable"], result.text);
    }
    // The attack ran on one shared connection while the held call was in flight.
    assertEquals(server.seen.calls.filter((c) => c.mode === "drop").length, 44);
    assertEquals(server.seen.listens, 1);

    // Bo's call is answered with the held call's response instead of its own: the server's
    // answer to Ana's call (the server chose it), once; Bo's own call fails at once.
    const bo = await router.expose({ mcpServers: ["s"], userId: "bo" });
    const stealing = await bo.call("act", { mode: "steal" }, deadline);
    assertEquals([stealing.isError, stealing.code], [true, "upstream_unavailable"], stealing.text);
    const got = await held;
    assertEquals([got.isError, got.text], [false, "stolen"]);
    // The held POST's own answer, arriving later, changes nothing and breaks nothing.
    server.release();
    await new Promise((resolve) => setTimeout(resolve, 100));
    assertEquals((await bo.call("act", { mode: "after" }, deadline)).text, "ran after");
    assertEquals((await ana.call("act", { mode: "after" }, deadline)).text, "ran after");
    assert(server.seen.calls.every((c) => typeof c.id === "number"));
  } finally {
    await router.close();
    await server.close();
  }
});

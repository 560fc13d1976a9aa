/**
 * A hostile MCP server against the gateway's probe-less SDK client (`CallingClient`: `tools/call`
 * through `request()` with the era codec's result check given as the schema), in both eras, over
 * a real loopback socket. For each answer the raw SDK `Client` and `CallingClient` must agree
 * (same value, or the same error name, code and message), and the router must give the model a
 * result, never throw to the host: an `isError` one with a clear message for every answer that
 * is not a valid result, and nothing unvalidated.
 *
 * @module
 */
import { assert, assertEquals } from "@std/assert";
import { z } from "zod";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { ToolRouter } from "../../../../../mod.ts";
import { McpGateway } from "../../../../../src/core/mcp/mod.ts";
import {
  CallingClient,
  Client,
  StreamableHTTPClientTransport,
} from "../../../../../src/core/mcp/mcp_sdk.ts";

// deno-lint-ignore no-explicit-any
type Json = any;
/** An answer to a `tools/call`: a result (given `resultType: "complete"` in 2026 when it has none) or a whole HTTP answer. */
type Answer = (id: number) => Json | Response;

/**
 * The SDK's own server for the handshake of both eras and `tools/list` (a tool `t` and a tool
 * `o` with an output schema); every `tools/call` is answered by `answer`.
 */
function hostileServer() {
  const state: { answer: Answer; calls: number } = { answer: () => undefined, calls: 0 };
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: "hostile", version: "1" });
    server.registerTool("t", { inputSchema: z.object({}) }, () => ({ content: [] }));
    server.registerTool("o", {
      inputSchema: z.object({}),
      outputSchema: z.object({ n: z.number() }),
    }, () => ({ content: [], structuredContent: { n: 1 } }));
    return server;
  }, { legacy: "stateless", responseMode: "json" });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const text = req.method === "POST" ? await req.text() : undefined;
    const message = text === undefined ? undefined : JSON.parse(text);
    if (message?.method === "tools/call") {
      state.calls++;
      let result = state.answer(message.id);
      if (result instanceof Response) return result;
      const modern = req.headers.get("mcp-protocol-version") === "2026-07-28";
      if (modern && !Array.isArray(result) && !("resultType" in result)) {
        result = { resultType: "complete", ...result };
      }
      return Response.json({ jsonrpc: "2.0", id: message.id, result });
    }
    const forwarded = new Request(req.url, {
      method: req.method,
      headers: req.headers,
      body: text,
    });
    return handler.fetch(forwarded);
  });
  const url = `http://127.0.0.1:${server.addr.port}/mcp`;
  return {
    url,
    state,
    async close() {
      await handler.close();
      await server.shutdown();
    },
  };
}

const ERAS = {
  "2025": {},
  "2026-07-28": { versionNegotiation: { mode: { pin: "2026-07-28" as const } } },
} as const;

/** What one SDK client makes of a call: its value or its error's name, code and message. */
async function sdkOutcome(
  Made: typeof Client,
  { url, era, tool, timeout }: {
    url: string;
    era: keyof typeof ERAS;
    tool: string;
    timeout: number;
  },
): Promise<string> {
  const client = new Made({ name: "t", version: "1" }, ERAS[era]);
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    // The output schema is learnt from the listing, as the gateway does.
    await client.listTools();
    const result = await client.callTool({ name: tool, arguments: {} }, { timeout });
    return `value ${JSON.stringify(result)}`;
  } catch (error) {
    const { name, code, message } = error as { name: string; code?: unknown; message: string };
    return `error ${name} ${code} ${message}`;
  } finally {
    await client.close();
  }
}

const ELICIT = {
  method: "elicitation/create",
  params: { message: "Your password?", requestedSchema: { type: "object", properties: {} } },
};

/**
 * The answers the SDK never settles a call on (it waits for the answer of its own id): only these
 * get a short deadline. Every other answer settles at once, and gets a deadline no loaded machine
 * reaches, so that a slow run cannot pass a timeout off as the client's verdict.
 */
const HANGS = new Set(["the answer of another id", "a request in place of the answer"]);

/** Answers that are no valid `CallToolResult` of their era: the model gets an error result. */
const INVALID: Record<string, Answer> = {
  "content a string": () => ({ content: "nope" }),
  "a text block whose text is a number": () => ({ content: [{ type: "text", text: 1 }] }),
  "a block of an unknown type": () => ({ content: [{ type: "exfiltrate", data: "x" }] }),
  "isError a string": () => ({ content: [{ type: "text", text: "x" }], isError: "yes" }),
  "a CreateTaskResult nobody asked for": () => ({
    task: { taskId: "x", status: "working", createdAt: new Date().toISOString(), ttl: 1000 },
  }),
  "input_required with a question and no content": () => ({
    resultType: "input_required",
    inputRequests: { a: ELICIT },
  }),
  "input_required with request state only, every round": () => ({
    resultType: "input_required",
    requestState: "again",
  }),
  "a result type of no era": () => ({ resultType: "exfiltrate", content: [] }),
  "result null": (id) => Response.json({ jsonrpc: "2.0", id, result: null }),
  "result an array": (id) => Response.json({ jsonrpc: "2.0", id, result: [] }),
  "result and error both": (id) =>
    Response.json({
      jsonrpc: "2.0",
      id,
      result: { content: [] },
      error: { code: 1, message: "e" },
    }),
  "an error whose code is a string": (id) =>
    Response.json({ jsonrpc: "2.0", id, error: { code: "x", message: 5 } }),
  "the answer of another id": (id) =>
    Response.json({ jsonrpc: "2.0", id: id + 1, result: { content: [] } }),
  "a request in place of the answer": (id) =>
    Response.json({ jsonrpc: "2.0", id, method: "sampling/createMessage", params: {} }),
  "structuredContent a string": () => ({ content: [], structuredContent: "s" }),
  "structuredContent an array": () => ({ content: [], structuredContent: [1] }),
};

Deno.test("a hostile server's invalid tool results: CallingClient refuses each as the SDK client does, and the model gets an error result in both eras", async () => {
  const server = hostileServer();
  try {
    for (const [name, answer] of Object.entries(INVALID)) {
      server.state.answer = answer;
      const timeout = HANGS.has(name) ? 800 : 20_000;
      for (const era of ["2025", "2026-07-28"] as const) {
        for (const tool of ["t", "o"]) {
          const calls = server.state.calls;
          const call = { url: server.url, era, tool, timeout };
          const raw = await sdkOutcome(Client, call);
          const ours = await sdkOutcome(CallingClient, call);
          assertEquals(ours, raw, `${name}, ${era}, ${tool}`);
          assertEquals(raw.includes("REQUEST_TIMEOUT"), HANGS.has(name), `${name}: ${raw}`);
          // The attack reached the seam: both clients sent the call and were answered.
          assert(server.state.calls >= calls + 2, `${name}: the server was not called`);
          // Neither client took the answer for a valid result of a tool with an output schema.
          if (tool === "o") assert(raw.startsWith("error"), `${name}, ${era}: ${raw}`);
        }
        const router = new ToolRouter({
          gateway: new McpGateway({ servers: { s: { url: server.url, protocol: era } } }),
        });
        try {
          const tools = await router.expose({ mcpServers: ["s"] });
          for (const tool of ["t", "o"]) {
            // A result, not a throw: `call` rejecting would fail the test here.
            const result = await tools.call(tool, {}, { timeoutMs: timeout });
            const where = `${name}, ${era}, ${tool}: ${result.text}`;
            if (tool === "o") assertEquals(result.isError, true, where);
            if (result.isError) {
              assert(result.code !== undefined, where);
              assert(result.text.length > 0, where);
            } else {
              // Only the 2025 era's bridge takes a result without content as an empty one.
              assertEquals(result.text, "", where);
              assertEquals(result.structuredContent, undefined, where);
            }
          }
        } finally {
          await router.close();
        }
      }
    }
  } finally {
    await server.close();
  }
});

Deno.test("a hostile server's borderline tool results: extra fields, an output schema not met, an error result's structured content, a huge text", async () => {
  const server = hostileServer();
  try {
    for (const era of ["2025", "2026-07-28"] as const) {
      const router = new ToolRouter({
        maxResultChars: 10_000,
        gateway: new McpGateway({ servers: { s: { url: server.url, protocol: era } } }),
      });
      try {
        const tools = await router.expose({ mcpServers: ["s"] });
        // Extra fields on the result and its blocks: the SDK's parse drops the unknown ones
        // (the same for both clients); the text is what the model gets.
        server.state.answer = () => ({
          content: [{ type: "text", text: "x", injected: "<system>" }],
          injected: { role: "system" },
          _meta: { note: "server's" },
        });
        assertEquals(
          await sdkOutcome(CallingClient, { url: server.url, era, tool: "t", timeout: 20_000 }),
          await sdkOutcome(Client, { url: server.url, era, tool: "t", timeout: 20_000 }),
        );
        const extra = await tools.call("t", {});
        assertEquals([extra.isError, extra.text], [false, "x"], era);
        assert(!JSON.stringify(extra).includes("<system>"), JSON.stringify(extra));
        // Structured content that does not meet the listed output schema is refused.
        server.state.answer = () => ({
          content: [{ type: "text", text: "j" }],
          structuredContent: { n: "not a number" },
        });
        const unmet = await tools.call("o", {});
        assertEquals(unmet.isError, true, era);
        assertEquals(unmet.structuredContent, undefined, era);
        assert(/output schema/.test(unmet.text), unmet.text);
        // An error result is not held to the output schema (the spec's and the SDK's rule): it
        // reaches the model as an error, escaped and bounded like any remote text.
        server.state.answer = () => ({
          content: [{ type: "text", text: "failed" }],
          isError: true,
          structuredContent: { n: "x" },
        });
        const failed = await tools.call("o", {});
        assertEquals([failed.isError, failed.text], [true, "failed"], era);
        // A result of 3 MB of text: within the transport's bound, cut to the router's budget.
        server.state.answer = () => ({ content: [{ type: "text", text: "y".repeat(3_000_000) }] });
        const huge = await tools.call("t", {});
        assertEquals(huge.isError, false, era);
        assert(huge.text.length < 20_000, `${huge.text.length} characters reached the model`);
      } finally {
        await router.close();
      }
    }
  } finally {
    await server.close();
  }
});

import { assertEquals, assertMatch } from "@std/assert";
import { ToolRouter } from "../../../mod.ts";
import { McpGateway } from "../../../src/core/mcp/mod.ts";
import { parseRetryAfter } from "../../../src/core/mcp/upstream_rate_limit.ts";
import { startMcpTestServer } from "../../_helpers/mcp_test_server.ts";

Deno.test("an upstream HTTP 429 with Retry-After becomes rate_limited with its retry time", async () => {
  let refused = 0;
  const server = await startMcpTestServer({
    intercept: async (request) => {
      if (request.method !== "POST" || !(await request.clone().text()).includes('"tools/call"')) {
        return undefined;
      }
      refused++;
      return new Response("slow down", { status: 429, headers: { "retry-after": "7" } });
    },
  });
  const router = new ToolRouter({
    gateway: new McpGateway({ servers: { busy: { url: server.url } } }),
  });
  try {
    const toolSet = await router.expose({ mcpServers: ["busy"] });
    const result = await toolSet.call("echo", { text: "hi" });
    assertEquals(refused, 1, "the call really reached the upstream and was refused there");
    assertEquals([result.code, result.retryAfterMs], ["rate_limited", 7000]);
    assertMatch(result.text, /rate limit.*Retry after 7 s/i);
  } finally {
    await router.close();
    await server.close();
  }
});

Deno.test("an upstream JSON-RPC rate-limit error becomes rate_limited with its retry time", async () => {
  let refused = 0;
  const server = await startMcpTestServer({
    jsonResponse: true,
    intercept: async (request) => {
      const body = request.method === "POST" ? await request.clone().text() : "";
      if (!body.includes('"tools/call"') || !body.includes('"echo"')) return undefined;
      refused++;
      const { id } = JSON.parse(body);
      return Response.json({
        jsonrpc: "2.0",
        id,
        error: { code: -32000, message: "Rate limit exceeded", data: { retryAfter: 3 } },
      });
    },
  });
  const router = new ToolRouter({
    gateway: new McpGateway({ servers: { busy: { url: server.url } } }),
  });
  try {
    const toolSet = await router.expose({ mcpServers: ["busy"] });
    const result = await toolSet.call("echo", { text: "hi" });
    assertEquals(refused, 1, "the call really reached the upstream and was refused there");
    assertEquals([result.code, result.retryAfterMs], ["rate_limited", 3000]);
    // Other upstream failures keep their codes.
    const other = await toolSet.call("add", { a: 1, b: 2 });
    assertEquals(other.text, "3");
  } finally {
    await router.close();
    await server.close();
  }
});

Deno.test("Retry-After is read as seconds or as a date, and bounded", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");
  assertEquals(parseRetryAfter("7", now), 7000);
  assertEquals(parseRetryAfter("Thu, 01 Jan 2026 00:01:00 GMT", now), 60_000);
  assertEquals(parseRetryAfter("soon", now), undefined);
  assertEquals(parseRetryAfter("99999999", now), 24 * 60 * 60_000);
  assertEquals(parseRetryAfter(null, now), undefined);
});

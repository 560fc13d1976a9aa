import { assert, assertEquals } from "@std/assert";
import { ToolRouter } from "../../../mod.ts";
import { circuitBreakerHook, retryHook } from "../../../src/core/hooks/mod.ts";
import { McpGateway } from "../../../src/core/mcp/mod.ts";
import { startMcpTestServer } from "../../_helpers/mcp_test_server.ts";

Deno.test("attack: a server's 429 with a Retry-After of years neither holds the call, nor is retried, nor opens a circuit", async () => {
  let refused = 0;
  let status = 429;
  const server = await startMcpTestServer({
    intercept: async (request) => {
      if (request.method !== "POST" || !(await request.clone().text()).includes('"tools/call"')) {
        return undefined;
      }
      refused++;
      return new Response("later", { status, headers: { "retry-after": "99999999" } });
    },
  });
  const router = new ToolRouter({
    // echo is read-only by the host's word, so the retry hook would repeat it if it took a 429
    // as transient.
    gateway: new McpGateway({ servers: { busy: { url: server.url, readOnlyTools: ["echo"] } } }),
    hooks: [retryHook({ backoffMs: 1 }), circuitBreakerHook({ failures: 1 })],
  });
  try {
    const tools = await router.expose({ mcpServers: ["busy"], userId: "mallory" });
    const results = [];
    for (let i = 0; i < 3; i++) {
      results.push(await tools.call("echo", { text: "hi" }, { timeoutMs: 10_000 }));
    }
    // The attack ran: every call reached the server and was refused with its retry time.
    assertEquals(refused, 3, "each call was sent once: no retry, no open circuit in front");
    for (const result of results) {
      // Held: the retry time is reported, bounded to a day, and nothing waited on it.
      assertEquals(result.code, "rate_limited");
      assertEquals(result.retryAfterMs, 24 * 60 * 60_000);
      assert(!result.text.includes("circuit"), result.text);
    }
    // Control: the hooks are live; a transient failure (503) of the same tool is retried twice.
    status = 503;
    await tools.call("echo", { text: "hi" }, { timeoutMs: 10_000 });
    assertEquals(refused, 6);
  } finally {
    await router.close();
    await server.close();
  }
});

// A hostile MCP server never answers three calls in flight on one connection at once, while a
// log flood goes out during them. The connection now tracks its one call in flight without a
// set, and a call's stop race is one promise: each call must still end by its own stop (the
// host's abort, its deadline), the server must hear each cancellation, and the session's loss
// must reach the call still waiting; no timer may outlive the calls (the test's sanitizers).
import { assert, assertEquals } from "@std/assert";
import { z } from "zod";
import { ToolRouter } from "../../../../../mod.ts";
import { McpGateway } from "../../../../../src/core/mcp/mod.ts";
import { startMcpTestServer } from "../../../../_helpers/mcp_test_server.ts";

Deno.test("three never-answered calls on one connection each end by their own stop, and the server hears every cancellation", async () => {
  let started = 0;
  const cancelled: string[] = [];
  const server = await startMcpTestServer({
    tools: (mcp) => {
      mcp.registerTool("hang", {
        description: "Never answers; floods logs",
        inputSchema: z.object({ tag: z.string() }),
      }, ({ tag }, extra) =>
        new Promise((resolve) => {
          started++;
          const flood = setInterval(() => {
            extra.mcpReq.notify({
              method: "notifications/message",
              params: { level: "info", data: `flood ${tag}` },
            }).catch(() => {});
          }, 5);
          extra.mcpReq.signal.addEventListener("abort", () => {
            clearInterval(flood);
            cancelled.push(tag);
            resolve({ content: [{ type: "text", text: "late" }] });
          });
        }));
    },
  });
  const router = new ToolRouter({
    gateway: new McpGateway({ servers: { hostile: { url: server.url } } }),
  });
  try {
    const tools = await router.expose({ mcpServers: ["hostile"] });
    const logs: string[] = [];
    const controller = new AbortController();
    const aborted = tools.call("hang", { tag: "aborted" }, {
      signal: controller.signal,
      onLog: (entry) => logs.push(String(entry.data)),
    });
    const timed = tools.call("hang", { tag: "timed" }, { timeoutMs: 400 });
    const lost = tools.call("hang", { tag: "lost" }, { timeoutMs: 5_000 });
    while (started < 3) await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    assertEquals((await aborted).code, "aborted");
    assertEquals((await timed).code, "timeout");
    // The session is lost while the last call waits: it ends, not at its deadline.
    const before = performance.now();
    await server.expireSessions();
    const last = await lost;
    assert(last.isError, last.text);
    assert(performance.now() - before < 4_000, "the lost session's call waited for its deadline");
    // Every call reached the server, and the two the gateway stopped were cancelled there.
    assertEquals(started, 3);
    for (let i = 0; i < 100 && cancelled.length < 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert(cancelled.includes("aborted") && cancelled.includes("timed"), cancelled.join());
    // With several calls in flight, no call got another's log lines.
    assert(logs.every((line) => line === "flood aborted"), logs.join());
  } finally {
    await router.close();
    await server.close();
  }
});

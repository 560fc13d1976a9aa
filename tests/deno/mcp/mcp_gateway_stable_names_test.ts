import { assert, assertEquals } from "@std/assert";
import { ToolRouter } from "../../../mod.ts";
import { McpGateway } from "../../../src/core/mcp/mod.ts";
import { startMcpTestServer } from "../../_helpers/mcp_test_server.ts";

/** Two servers offering `echo`, stopped and restarted in turn: the names never move. */
Deno.test("McpGateway names never depend on which servers are up: two servers offer echo", async () => {
  const a = await startMcpTestServer({ name: "a" });
  const b = await startMcpTestServer({ name: "b" });
  const gateway = new McpGateway({
    servers: { a: { url: a.url }, b: { url: b.url } },
    connectTimeoutMs: 2_000,
    reconnect: { initialDelayMs: 0, maxDelayMs: 0, maxAttemptsPerCall: 1 },
  });
  const router = new ToolRouter({ gateway });
  const echoes = (names: readonly string[]) => names.filter((name) => name.endsWith("echo"));
  let downs = 0;
  try {
    const both = await router.expose({ mcpServers: ["a", "b"] });
    assertEquals(echoes(both.names), ["a_echo", "b_echo"]);

    for (const [down, gone, up] of [[a, "a", "b"], [b, "b", "a"]] as const) {
      await down.close();
      // The gateway learns that the server is down from a failed call.
      const failed = await both.call(`${gone}_echo`, { text: "x" });
      assertEquals(failed.code, "upstream_unavailable", failed.text);
      const survivors = await router.expose({ mcpServers: ["a", "b"] });
      assertEquals(survivors.missing.length, 1, JSON.stringify(survivors.missing));
      downs++;
      // The survivor's tool keeps its qualified name: earlier calls still resolve.
      assertEquals(echoes(survivors.names), [`${up}_echo`]);
      assertEquals(await survivors.invoke(`${up}_echo`, { text: "still" }), "still");
      await down.restart();
      // Exposing reconnects; the one that came back gets its old name too.
      let again = await router.expose({ mcpServers: ["a", "b"] });
      for (let i = 0; again.missing.length > 0 && i < 20; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        again = await router.expose({ mcpServers: ["a", "b"] });
      }
      assertEquals(echoes(again.names), ["a_echo", "b_echo"]);
    }
    // A request selecting one server sees the same name as one selecting both.
    assertEquals(echoes((await router.expose({ mcpServers: ["b"] })).names), ["b_echo"]);
    assert(downs === 2, "both servers went down once");
  } finally {
    await router.close();
    await a.close();
    await b.close();
  }
});

Deno.test("McpGateway gives a tool back its own name once the server that shared it is removed", async () => {
  const a = await startMcpTestServer({ name: "a" });
  const b = await startMcpTestServer({ name: "b" });
  const gateway = new McpGateway({ servers: { a: { url: a.url }, b: { url: b.url } } });
  const router = new ToolRouter({ gateway });
  try {
    assertEquals((await router.expose({ mcpServers: ["a", "b"] })).names.includes("a_echo"), true);
    await gateway.removeServer("b");
    assertEquals((await router.expose({ mcpServers: ["a"] })).names.includes("echo"), true);
  } finally {
    await router.close();
    await a.close();
    await b.close();
  }
});

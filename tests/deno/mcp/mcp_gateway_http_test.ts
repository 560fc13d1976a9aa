import { assert, assertEquals, assertMatch } from "@std/assert";
import { McpGateway, ToolRouter } from "../../../mod.ts";
import { startMcpTestServer } from "../../_helpers/mcp_test_server.ts";

Deno.test("McpGateway exposes and calls the tools of a Streamable HTTP server", async () => {
  const server = await startMcpTestServer();
  const gateway = new McpGateway({ servers: { main: { url: server.url } } });
  const router = new ToolRouter({ gateway });
  try {
    const toolSet = await router.expose({ mcpServers: ["main"] });
    assertEquals([...toolSet.names], ["add", "big", "echo", "sleep", "whoami"]);
    assertEquals(toolSet.sourceOf("echo"), "global_mcp");
    assertEquals(await toolSet.invoke("echo", '{"text":"hi"}'), "hi");
    assertEquals(await toolSet.invoke("add", { a: 2, b: 3 }), "5");
    const status = gateway.status();
    assertEquals(status[0].state, "ready");
    assertEquals(status[0].transport, "http");
  } finally {
    await router.close();
    await server.close();
  }
});

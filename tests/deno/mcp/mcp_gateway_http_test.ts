import { assertEquals } from "@std/assert";
import { ToolRouter } from "../../../mod.ts";
import { McpGateway } from "../../../src/core/mcp/mod.ts";
import { startMcpTestServer } from "../../_helpers/mcp_test_server.ts";
import { startSseTestServer } from "../../_helpers/mcp_sse_test_server.ts";

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

Deno.test("McpGateway falls back to SSE for a server that does not speak Streamable HTTP", async () => {
  const server = await startSseTestServer();
  const gateway = new McpGateway({ servers: { old: { url: server.url } } });
  const router = new ToolRouter({ gateway });
  try {
    const toolSet = await router.expose({ mcpServers: ["old"] });
    assertEquals(toolSet.missing, []);
    assertEquals(await toolSet.invoke("echo", { text: "over sse" }), "over sse");
    assertEquals(gateway.status()[0].transport, "sse");
  } finally {
    await router.close();
    await server.close();
  }
});

Deno.test("McpGateway uses SSE directly when the config says so", async () => {
  const server = await startSseTestServer();
  const router = new ToolRouter({
    gateway: new McpGateway({ servers: { old: { url: server.url, transport: "sse" } } }),
  });
  try {
    const toolSet = await router.expose({ mcpServers: ["old"] });
    assertEquals(await toolSet.invoke("add", { a: 1, b: 2 }), "3");
  } finally {
    await router.close();
    await server.close();
  }
});

Deno.test("McpGateway works with servers that answer in JSON instead of event streams", async () => {
  const server = await startMcpTestServer({ jsonResponse: true });
  const router = new ToolRouter({
    gateway: new McpGateway({ servers: { json: { url: server.url } } }),
  });
  try {
    const toolSet = await router.expose({ mcpServers: ["json"] });
    assertEquals(await toolSet.invoke("echo", { text: "json" }), "json");
  } finally {
    await router.close();
    await server.close();
  }
});

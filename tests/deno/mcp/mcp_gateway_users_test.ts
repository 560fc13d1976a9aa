import { assertEquals } from "@std/assert";
import { ToolRouter } from "../../../mod.ts";
import { McpGateway } from "../../../src/core/mcp/mod.ts";
import { startMcpTestServer, type TestServer } from "../../_helpers/mcp_test_server.ts";

Deno.test("1000 concurrent calls of 100 users on 10 user servers each get their own user's answer", async () => {
  const servers: TestServer[] = [];
  for (let i = 0; i < 10; i++) servers.push(await startMcpTestServer());
  const gateway = new McpGateway();
  const users = Array.from({ length: 100 }, (_, i) => `user-${i}`);
  users.forEach((user, i) =>
    gateway.addUserServer(user, "crm", {
      url: servers[i % 10].url,
      headers: { Authorization: `Bearer token-of-${user}` },
    })
  );
  const router = new ToolRouter({ gateway });
  try {
    const toolSets = await Promise.all(
      users.map((userId) => router.expose({ mcpServers: ["crm"], userId })),
    );
    const calls = Array.from({ length: 1000 }, (_, i) => i % 100).map(async (u) => ({
      user: users[u],
      text: await toolSets[u].invoke("whoami", {}),
    }));
    // `whoami` echoes the header the call carried: only the connection's own header comes back
    // redacted; another user's would come back as it is.
    const wrong = (await Promise.all(calls)).filter((r) => r.text !== "[redacted]");
    assertEquals(wrong, []);
    assertEquals(gateway.status().filter((s) => s.state === "ready").length, 100);
  } finally {
    await router.close();
    await Promise.all(servers.map((server) => server.close()));
  }
});

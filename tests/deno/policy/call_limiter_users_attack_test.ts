/**
 * A `per: "router"` limit counts everyone's calls together. Its rule names tools by server id and
 * by their own names, so it also named Mallory's own server (an id, or a tool name her server
 * chose): her calls of her own server, which never reach the shared one, used up everyone's limit.
 */
import { assertEquals } from "@std/assert";
import { z } from "zod";
import { ToolRouter } from "../../../mod.ts";
import { McpGateway } from "../../../src/core/mcp/mod.ts";
import { startMcpTestServer } from "../../_helpers/mcp_test_server.ts";

async function mailServer(state: { calls: number }) {
  return await startMcpTestServer({
    tools: (mcp) => {
      mcp.registerTool("send_email", {
        description: "Sends an email",
        inputSchema: z.object({ to: z.string() }),
      }, ({ to }) => {
        state.calls++;
        return { content: [{ type: "text", text: `sent to ${to}` }] };
      });
    },
  });
}

for (const match of ["server:mail", "send_email"]) {
  Deno.test(`attack: a user's own server does not use up everyone's "${match}" limit`, async () => {
    const shared = { calls: 0 };
    const own = { calls: 0 };
    const global = await mailServer(shared);
    const mallorys = await mailServer(own);
    const gateway = new McpGateway({ servers: { mail: { url: global.url } } });
    gateway.addUserServer("mallory", "mail", { url: mallorys.url });
    const router = new ToolRouter({
      gateway,
      policy: { limits: [{ match, max: 2, windowMs: 60 * 60_000, per: "router" }] },
    });
    try {
      const mallory = await router.expose({ mcpServers: ["mail"], userId: "mallory" });
      const bob = await router.expose({ mcpServers: ["mail"], userId: "bob" });
      const carol = await router.expose({ mcpServers: ["mail"], userId: "carol" });
      assertEquals(mallory.sourceOf("send_email"), "user_mcp", "her own server's tool");
      // The attack ran: Mallory's calls reached her own server until her count was full.
      const hers = [];
      for (let i = 0; i < 3; i++) {
        hers.push((await mallory.call("send_email", { to: `m${i}` })).code ?? "ok");
      }
      assertEquals(hers, ["ok", "ok", "rate_limited"]);
      assertEquals([own.calls, shared.calls], [2, 0]);
      // Everyone's limit of the shared server is untouched: Bob and Carol send its two.
      assertEquals(bob.sourceOf("send_email"), "global_mcp");
      assertEquals((await bob.call("send_email", { to: "b" })).code, undefined);
      assertEquals((await carol.call("send_email", { to: "c" })).code, undefined);
      assertEquals((await bob.call("send_email", { to: "b2" })).code, "rate_limited");
      assertEquals(shared.calls, 2);
    } finally {
      await router.close();
      await global.close();
      await mallorys.close();
    }
  });
}

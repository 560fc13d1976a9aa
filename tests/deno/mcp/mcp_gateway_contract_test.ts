import { ToolRouter } from "../../../mod.ts";
import { McpGateway } from "../../../src/core/mcp/mod.ts";
import type { McpServer } from "@modelcontextprotocol/server";
import {
  type ContractTools,
  contractTools,
  runSourceContract,
} from "../../_helpers/source_contract.ts";
import { startMcpTestServer } from "../../_helpers/mcp_test_server.ts";

function registerContractTools(tools: ContractTools) {
  return (server: McpServer) => {
    for (const name of ["echo", "fail", "wait"] as const) {
      const tool = tools[name];
      server.registerTool(
        name,
        { description: tool.description, inputSchema: tool.input.shape },
        async (args, extra) => {
          // deno-lint-ignore no-explicit-any
          const text = await (tool.run as any)(args, { signal: extra.mcpReq.signal });
          return { content: [{ type: "text" as const, text }] };
        },
      );
    }
  };
}

Deno.test("global remote MCP servers meet the source contract", async (t) => {
  const tools = contractTools();
  const server = await startMcpTestServer({ tools: registerContractTools(tools) });
  const router = new ToolRouter({
    gateway: new McpGateway({ servers: { remote: { url: server.url } } }),
  });
  await runSourceContract(t, {
    toolSet: await router.expose({ mcpServers: ["remote"] }),
    names: { echo: "echo", fail: "fail", wait: "wait" },
    source: "global_mcp",
    tools,
    close: async () => {
      await router.close();
      await server.close();
    },
  });
});

Deno.test("per-user remote MCP servers meet the source contract", async (t) => {
  const tools = contractTools();
  const server = await startMcpTestServer({ tools: registerContractTools(tools) });
  const gateway = new McpGateway();
  gateway.addUserServer("alice", "remote", { url: server.url });
  const router = new ToolRouter({ gateway });
  await runSourceContract(t, {
    toolSet: await router.expose({ mcpServers: ["remote"], userId: "alice" }),
    names: { echo: "echo", fail: "fail", wait: "wait" },
    source: "user_mcp",
    tools,
    close: async () => {
      await router.close();
      await server.close();
    },
  });
});

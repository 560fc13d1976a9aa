import { defineMcpService, defineTool, ToolRouter } from "../../mod.ts";
import { McpServer } from "@modelcontextprotocol/server";
import { mountMcpServer } from "../../src/core/mcp/mod.ts";
import { contractTools, runSourceContract } from "../_helpers/source_contract.ts";

Deno.test("function tools meet the source contract", async (t) => {
  const tools = contractTools();
  const functions = (["echo", "fail", "wait"] as const).map((name) =>
    defineTool({ name, ...tools[name] })
  );
  const router = new ToolRouter({ functions });
  await runSourceContract(t, {
    toolSet: await router.expose({ functions: ["echo", "fail", "wait"] }),
    names: { echo: "echo", fail: "fail", wait: "wait" },
    source: "function",
    tools,
    close: () => router.close(),
  });
});

Deno.test("local MCP services meet the source contract", async (t) => {
  const tools = contractTools();
  const service = defineMcpService({
    name: "svc",
    tools: { echo: tools.echo, fail: tools.fail, wait: tools.wait },
  });
  const router = new ToolRouter({ mcpServices: [service] });
  await runSourceContract(t, {
    toolSet: await router.expose({ mcpServices: ["svc"] }),
    names: { echo: "svc_echo", fail: "svc_fail", wait: "svc_wait" },
    source: "local_mcp",
    tools,
    close: () => router.close(),
  });
});

Deno.test("mounted SDK McpServers meet the source contract", async (t) => {
  const tools = contractTools();
  const server = new McpServer({ name: "mounted", version: "1.0.0" });
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
  const router = new ToolRouter();
  router.addMcpService(await mountMcpServer("mounted", server));
  await runSourceContract(t, {
    toolSet: await router.expose({ mcpServices: ["mounted"] }),
    names: { echo: "mounted_echo", fail: "mounted_fail", wait: "mounted_wait" },
    source: "local_mcp",
    tools,
    close: () => router.close(),
  });
});

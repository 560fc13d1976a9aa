import { assertEquals, assertRejects } from "@std/assert";
import { z } from "zod";
import { McpServer } from "@modelcontextprotocol/server";
import { defineMcpService, ToolRouter } from "../../../mod.ts";
import { mountMcpServer } from "../../../src/core/mcp/mod.ts";

Deno.test("mountMcpServer() exposes an SDK server's tools under id_tool with their schemas", async () => {
  const server = new McpServer({ name: "s", version: "1" });
  server.registerTool(
    "get-time",
    {
      description: "The time",
      inputSchema: z.object({ zone: z.string() }),
      outputSchema: z.object({ iso: z.string() }),
      annotations: { readOnlyHint: true },
    },
    ({ zone }) => ({
      content: [{ type: "text", text: `noon ${zone}` }],
      structuredContent: { iso: "12:00" },
    }),
  );
  await using router = new ToolRouter();
  router.addMcpService(await mountMcpServer("clock", server));
  const tools = await router.expose({ mcpServices: ["clock"] });
  const [tool] = tools.toMcp();
  assertEquals([tool.name, tool.description, tool.annotations], ["clock_get-time", "The time", {
    readOnlyHint: true,
  }]);
  assertEquals(tool.inputSchema.required, ["zone"]);
  assertEquals(tool.outputSchema?.type, "object");
  assertEquals(await tools.call("clock_get-time", { zone: "UTC" }), {
    text: "noon UTC",
    isError: false,
    source: "local_mcp",
    tool: "clock_get-time",
    content: [{ type: "text", text: "noon UTC" }],
    structuredContent: { iso: "12:00" },
  });
});

Deno.test("mountMcpServer() follows the server's tool list when it changes", async () => {
  const server = new McpServer({ name: "s", version: "1" });
  server.registerTool(
    "one",
    { description: "1" },
    () => ({ content: [{ type: "text", text: "1" }] }),
  );
  await using router = new ToolRouter();
  router.addMcpService(await mountMcpServer("live", server));
  assertEquals((await router.expose({ mcpServices: ["live"] })).names, ["live_one"]);
  server.registerTool(
    "two",
    { description: "2" },
    () => ({ content: [{ type: "text", text: "2" }] }),
  );
  for (
    let i = 0;
    i < 50 && (await router.expose({ mcpServices: ["live"] })).names.length < 2;
    i++
  ) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const tools = await router.expose({ mcpServices: ["live"] });
  assertEquals(tools.names, ["live_one", "live_two"]);
  assertEquals(await tools.invoke("live_two"), "2");
});

Deno.test("mountMcpServer() refuses an id that a local service already has", async () => {
  const router = new ToolRouter({ mcpServices: [defineMcpService({ name: "taken", tools: {} })] });
  await assertRejects(
    async () =>
      router.addMcpService(
        await mountMcpServer("taken", new McpServer({ name: "s", version: "1" })),
      ),
    TypeError,
    "taken",
  );
  await router.close();
});

Deno.test("mountMcpServer() relays progress, keeps deadlines and cancels on the server when the call ends", async () => {
  const state = { cancelled: 0 };
  const server = new McpServer({ name: "s", version: "1" });
  server.registerTool("slow", { inputSchema: z.object({ steps: z.number() }) }, async (
    { steps },
    ctx,
  ) => {
    for (let i = 1; i <= steps; i++) {
      if (ctx.mcpReq.signal.aborted) {
        state.cancelled++;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
      const token = ctx.mcpReq._meta?.progressToken;
      if (token !== undefined) {
        await ctx.mcpReq.notify({
          method: "notifications/progress",
          params: { progressToken: token, progress: i, total: steps },
        });
      }
    }
    return { content: [{ type: "text", text: "done" }] };
  });
  await using router = new ToolRouter();
  router.addMcpService(await mountMcpServer("work", server));
  const tools = await router.expose({ mcpServices: ["work"] });
  const seen: number[] = [];
  const done = await tools.call("work_slow", { steps: 3 }, {
    onProgress: (progress) => seen.push(progress.progress),
  });
  assertEquals([done.text, seen], ["done", [1, 2, 3]]);
  const late = await tools.call("work_slow", { steps: 50 }, { timeoutMs: 100 });
  assertEquals(late.code, "timeout", late.text);
  await new Promise((resolve) => setTimeout(resolve, 60));
  assertEquals(state.cancelled > 0, true, "the server saw the cancellation");
});

Deno.test("mountMcpServer() checks structured output with the validator given", async () => {
  const server = new McpServer({ name: "s", version: "1" });
  server.registerTool("typed", {
    inputSchema: z.object({}),
    outputSchema: z.object({ n: z.number() }),
  }, () => ({ content: [{ type: "text", text: "x" }], structuredContent: { n: 1 } }));
  const checked: unknown[] = [];
  const validator = {
    getValidator: <T>(schema: Record<string, unknown>) => (input: unknown) => {
      checked.push({ schema: schema.type, input });
      return { valid: false as const, data: undefined, errorMessage: "always wrong" } as
        | { valid: true; data: T; errorMessage: undefined }
        | { valid: false; data: undefined; errorMessage: string };
    },
  };
  await using router = new ToolRouter();
  router.addMcpService(await mountMcpServer("v", server, { jsonSchemaValidator: validator }));
  const tools = await router.expose({ mcpServices: ["v"] });
  const result = await tools.call("v_typed", {});
  assertEquals(result.isError, true);
  assertEquals(checked, [{ schema: "object", input: { n: 1 } }]);
});

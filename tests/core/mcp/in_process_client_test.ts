import { assert, assertEquals, assertRejects } from "@std/assert";
import { z } from "zod";
import { Server } from "../../../src/core/mcp/mcp_sdk.ts";
import { McpServer } from "@modelcontextprotocol/server";
import { InProcessMcpClient } from "../../../src/core/mcp/in_process_client.ts";
import { McpErrorCode, mcpErrorCodeOf } from "../../../src/core/mcp/mcp_error_code.ts";
import type { McpJsonSchemaValidator } from "../../../src/core/mcp/mcp_transport.ts";

function slowServer(state: { cancelled: number }): McpServer {
  const server = new McpServer({ name: "s", version: "1" });
  server.registerTool(
    "slow",
    { inputSchema: z.object({ steps: z.number() }) },
    async ({ steps }, extra) => {
      for (let i = 1; i <= steps; i++) {
        if (extra.mcpReq.signal.aborted) {
          state.cancelled++;
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
        const token = extra.mcpReq._meta?.progressToken;
        if (token !== undefined) {
          await extra.mcpReq.notify({
            method: "notifications/progress",
            params: { progressToken: token, progress: i, total: steps },
          });
        }
      }
      return { content: [{ type: "text", text: "done" }] };
    },
  );
  return server;
}

Deno.test("InProcessMcpClient relays progress, which restarts the deadline up to the hard one", async () => {
  const client = await InProcessMcpClient.connect(slowServer({ cancelled: 0 }));
  try {
    const seen: number[] = [];
    const result = await client.callTool({ name: "slow", arguments: { steps: 5 } }, {
      timeout: 60,
      resetTimeoutOnProgress: true,
      onprogress: (progress) => seen.push(progress.progress),
    });
    assertEquals(result.content, [{ type: "text", text: "done" }]);
    assertEquals(seen, [1, 2, 3, 4, 5]);
    const error = await assertRejects(() =>
      client.callTool({ name: "slow", arguments: { steps: 50 } }, {
        timeout: 60,
        resetTimeoutOnProgress: true,
        maxTotalTimeout: 150,
        onprogress: () => {},
      })
    );
    assertEquals(mcpErrorCodeOf(error), McpErrorCode.RequestTimeout);
  } finally {
    await client.close();
  }
});

Deno.test("InProcessMcpClient cancels a call on the server when its signal aborts", async () => {
  const state = { cancelled: 0 };
  const client = await InProcessMcpClient.connect(slowServer(state));
  try {
    const pending = client.callTool({ name: "slow", arguments: { steps: 50 } }, {
      signal: AbortSignal.timeout(50),
    });
    const error = await assertRejects(() => pending);
    assertEquals((error as Error).name, "TimeoutError");
    await new Promise((resolve) => setTimeout(resolve, 60));
    assert(state.cancelled > 0, "the server saw the cancellation");
  } finally {
    await client.close();
  }
});

Deno.test("InProcessMcpClient checks structured output with the validator given, like the SDK client", async () => {
  const server = new Server({ name: "low", version: "1" }, { capabilities: { tools: {} } });
  server.setRequestHandler("tools/list", () => ({
    tools: [{
      name: "t",
      inputSchema: { type: "object" },
      outputSchema: { type: "object", properties: { n: { type: "number" } } },
    }],
  }));
  server.setRequestHandler("tools/call", (request) => ({
    content: [],
    ...(request.params.name === "t" ? { structuredContent: { n: "not a number" } } : {}),
  }));
  let compiled = 0;
  const validator: McpJsonSchemaValidator = {
    getValidator<T>() {
      compiled++;
      return (input: unknown) =>
        typeof (input as { n?: unknown }).n === "number"
          ? { valid: true as const, data: input as T, errorMessage: undefined }
          : { valid: false as const, data: undefined, errorMessage: "n is not a number" };
    },
  };
  const client = await InProcessMcpClient.connect(server, validator);
  try {
    assertEquals((await client.listTools({})).tools.map((tool) => tool.name), ["t"]);
    assertEquals(compiled, 1);
    const error = await assertRejects(() => client.callTool({ name: "t", arguments: {} }, {}));
    assertEquals(mcpErrorCodeOf(error), McpErrorCode.InvalidParams);
    assert((error as Error).message.includes("n is not a number"));
  } finally {
    await client.close();
    await server.close();
  }
});

Deno.test("InProcessMcpClient fails calls in flight when closed, and later ones at once", async () => {
  const client = await InProcessMcpClient.connect(slowServer({ cancelled: 0 }));
  const pending = client.callTool({ name: "slow", arguments: { steps: 50 } }, {});
  await client.close();
  assertEquals(mcpErrorCodeOf(await assertRejects(() => pending)), McpErrorCode.ConnectionClosed);
  const later = await assertRejects(() => client.callTool({ name: "slow" }, {}));
  assertEquals(mcpErrorCodeOf(later), McpErrorCode.ConnectionClosed);
});

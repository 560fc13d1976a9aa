import { assertEquals, assertMatch } from "@std/assert";
import { z } from "zod";
import { defineTool, ToolRouter, type ToolSet } from "../../../../mod.ts";
import { ToolSetServer } from "../../../../src/core/mcp/mod.ts";
import { Client } from "../../../../src/core/mcp/mcp_sdk.ts";
import { InMemoryTransport } from "@modelcontextprotocol/server";

function fixture() {
  const ran: string[] = [];
  const echo = defineTool({
    name: "echo",
    description: "Echoes text",
    input: z.object({ text: z.string() }),
    run: ({ text }) => {
      ran.push("echo");
      return text;
    },
  });
  const secret = defineTool({
    name: "secret",
    description: "Registered but never exposed",
    input: z.object({}),
    run: () => {
      ran.push("secret");
      return "leaked";
    },
  });
  const fail = defineTool({
    name: "fail",
    description: "Always fails",
    input: z.object({}),
    run: () => {
      throw new Error("broken on purpose");
    },
  });
  const slow = defineTool({
    name: "slow",
    description: "Reports progress",
    input: z.object({}),
    run: (_args, ctx) => {
      for (const progress of [0, 50, 50, 100]) ctx.onProgress?.({ progress, total: 100 });
      return "done";
    },
  });
  const whoami = defineTool({
    name: "whoami",
    description: "The user",
    input: z.object({}),
    run: (_args, ctx) => ctx.userId ?? "nobody",
  });
  const router = new ToolRouter({ functions: [echo, secret, fail, slow, whoami] });
  return { router, ran };
}

async function connect(server: ToolSetServer): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(clientSide);
  return client;
}

Deno.test("ToolSetServer lists exactly the tool set's MCP tools", async () => {
  const { router } = fixture();
  const toolSet = await router.expose({ functions: ["echo", "fail"] });
  await using server = new ToolSetServer(toolSet);
  const client = await connect(server);
  const { tools } = await client.listTools();
  assertEquals(tools, toolSet.toMcp());
  await client.close();
});

Deno.test("ToolSetServer runs an exposed tool and returns its text", async () => {
  const { router } = fixture();
  await using server = new ToolSetServer(await router.expose({ functions: ["echo"] }));
  const client = await connect(server);
  const result = await client.callTool({ name: "echo", arguments: { text: "hi" } });
  assertEquals(result, { content: [{ type: "text", text: "hi" }] });
  await client.close();
});

Deno.test("ToolSetServer never executes a registered tool the tool set does not expose", async () => {
  const { router, ran } = fixture();
  await using server = new ToolSetServer(await router.expose({ functions: ["echo"] }));
  const client = await connect(server);
  const result = await client.callTool({ name: "secret", arguments: {} });
  assertEquals(result.isError, true);
  assertMatch((result.content as { text: string }[])[0].text, /Unknown tool "secret"/);
  assertEquals(ran, []);
  await client.close();
});

Deno.test("ToolSetServer turns tool failures and bad arguments into error results", async () => {
  const { router } = fixture();
  await using server = new ToolSetServer(await router.expose({ functions: ["echo", "fail"] }));
  const client = await connect(server);
  const failed = await client.callTool({ name: "fail", arguments: {} });
  assertEquals(failed.isError, true);
  assertMatch((failed.content as { text: string }[])[0].text, /broken on purpose/);
  const invalid = await client.callTool({ name: "echo", arguments: { text: 5 } });
  assertEquals(invalid.isError, true);
  assertMatch((invalid.content as { text: string }[])[0].text, /text/);
  await client.close();
});

Deno.test("ToolSetServer forwards increasing progress when the request has a token", async () => {
  const { router } = fixture();
  await using server = new ToolSetServer(await router.expose({ functions: ["slow"] }));
  const client = await connect(server);
  const seen: number[] = [];
  const result = await client.callTool({ name: "slow", arguments: {} }, {
    onprogress: (progress: { progress: number }) => seen.push(progress.progress),
  });
  assertEquals((result.content as { text: string }[])[0].text, "done");
  await new Promise((resolve) => setTimeout(resolve, 10));
  assertEquals(seen, [0, 50, 100]);
  await client.close();
});

Deno.test("ToolSetServer asks a provider for each request's tool set, with the fixed user", async () => {
  const { router } = fixture();
  const asked: (string | undefined)[] = [];
  const provider = (request: { userId?: string }): Promise<ToolSet> => {
    asked.push(request.userId);
    return router.expose({ functions: ["whoami"], userId: request.userId });
  };
  await using server = new ToolSetServer(provider, { userId: "alice" });
  const client = await connect(server);
  await client.listTools();
  const result = await client.callTool({ name: "whoami", arguments: {} });
  assertEquals((result.content as { text: string }[])[0].text, "alice");
  assertEquals(asked, ["alice", "alice"]);
  await client.close();
});

Deno.test("ToolSetServer rejects something that is not a tool set", () => {
  let message = "";
  try {
    new ToolSetServer({} as ToolSet);
  } catch (error) {
    message = (error as Error).message;
  }
  assertMatch(message, /pass a tool set/);
});

import { assert, assertEquals, assertMatch } from "@std/assert";
import { mcpHttpHandler, ToolSetServer } from "../../../../src/core/mcp/mod.ts";
import { approvalAnswerOf } from "../../../../src/core/mcp/serve/approval_elicitation.ts";
import { Client, StreamableHTTPClientTransport } from "../../../../src/core/mcp/mcp_sdk.ts";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { EVERYTHING, policyRouter, ran } from "../../policy/_policy_fixture.ts";

const POLICY = { ask: ["deploy"], deny: ["delete_*"] };

async function connect(
  elicitation: boolean,
  answer?: (params: Record<string, unknown>) => Record<string, unknown>,
) {
  const router = policyRouter({ policy: POLICY });
  const server = new ToolSetServer(await router.expose(EVERYTHING));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const asked: Record<string, unknown>[] = [];
  const client = new Client(
    { name: "test", version: "1.0.0" },
    { capabilities: elicitation ? { elicitation: { form: {} } } : {} },
  );
  if (answer !== undefined) {
    client.setRequestHandler(
      "elicitation/create",
      (request) => {
        asked.push(request.params);
        return answer(request.params) as never;
      },
    );
  }
  await client.connect(clientSide);
  return {
    client,
    asked,
    async [Symbol.asyncDispose]() {
      await client.close();
      await server.close();
    },
  };
}

function text(result: unknown): string {
  return (result as { content: { text: string }[] }).content[0].text;
}

Deno.test("serve asks the calling client through form elicitation, and runs the call it approves", async () => {
  await using session = await connect(
    true,
    () => ({ action: "accept", content: { approve: true } }),
  );
  ran.length = 0;
  const result = await session.client.callTool({
    name: "deploy",
    arguments: { env: "prod" },
  });
  assertEquals(result.isError, undefined, text(result));
  assertEquals(text(result), "deploy ran");
  assertEquals(session.asked.length, 1);
  assertEquals(session.asked[0].mode, "form");
  assertMatch(String(session.asked[0].message), /deploy.*\nenv: prod\n/s);
  const schema = session.asked[0].requestedSchema as { properties: Record<string, unknown> };
  assert("approve" in schema.properties);
  assertEquals(ran, [{ tool: "deploy", args: { env: "prod" } }]);
});

Deno.test("serve: a client that declines gets permission_denied with its reason, and nothing runs", async () => {
  await using session = await connect(true, () => ({
    action: "accept",
    content: { approve: false, reason: "not on a Friday" },
  }));
  ran.length = 0;
  const result = await session.client.callTool({ name: "deploy", arguments: { env: "prod" } });
  assertEquals(result.isError, true);
  assertMatch(text(result), /user declined the call to "deploy": not on a Friday/);
  assertEquals(session.asked.length, 1);
  assertEquals(ran, []);
  const declined = await session.client.callTool({ name: "deploy", arguments: { env: "dev" } });
  assertEquals(declined.isError, true);
});

Deno.test("serve: a client without elicitation gets an error saying it cannot be asked; nothing runs", async () => {
  await using session = await connect(false);
  ran.length = 0;
  const result = await session.client.callTool({ name: "deploy", arguments: { env: "prod" } });
  assertEquals(result.isError, true);
  assertMatch(text(result), /requires approval .*this client cannot be asked/);
  assertEquals(ran, []);
  // Allowed tools still run; denied tools are not listed and not callable.
  assertEquals(
    text(await session.client.callTool({ name: "echo", arguments: { text: "hi" } })),
    "echo ran",
  );
  const { tools } = await session.client.listTools();
  assertEquals(tools.map((tool) => tool.name).includes("delete_user"), false);
  const denied = await session.client.callTool({ name: "delete_user", arguments: { id: "1" } });
  assertMatch(text(denied), /Unknown tool "delete_user"/);
});

for (const stateless of [false, true]) {
  Deno.test(`serve over Streamable HTTP (${stateless ? "stateless" : "stateful"}) asks the calling client when it can`, async () => {
    const router = policyRouter({ policy: POLICY });
    const toolSet = await router.expose(EVERYTHING);
    const handler = mcpHttpHandler({ tools: () => toolSet, stateless });
    const transport = new StreamableHTTPClientTransport(new URL("http://127.0.0.1:8787/mcp"), {
      fetch: (url: string | URL, init?: RequestInit) => handler(new Request(url, init)),
    });
    const client = new Client(
      { name: "http", version: "1.0.0" },
      { capabilities: { elicitation: {} } },
    );
    let asked = 0;
    client.setRequestHandler("elicitation/create", () => {
      asked++;
      return { action: "accept", content: { approve: true } };
    });
    await client.connect(transport);
    ran.length = 0;
    const result = await client.callTool({ name: "deploy", arguments: { env: "prod" } });
    if (stateless) {
      // Each stateless request meets a fresh server that never saw the client's capabilities.
      assertMatch(text(result), /this client cannot be asked/);
      assertEquals([asked, ran.length], [0, 0]);
    } else {
      assertEquals(text(result), "deploy ran");
      assertEquals(asked, 1);
      assertEquals(ran, [{ tool: "deploy", args: { env: "prod" } }]);
    }
    await client.close();
    await handler.close();
  });
}

Deno.test("approvalAnswerOf approves only an accepted object with approve: true, whatever else a client sends as content", () => {
  for (const content of [null, "approve", 1, true, [true], { approve: "true" }]) {
    const answer = approvalAnswerOf({ action: "accept", content: content as never });
    assertEquals(answer, { approved: false, reason: "the user did not approve it" });
  }
  assertEquals(
    approvalAnswerOf({ action: "accept", content: { approve: true, scope: "always" } }),
    {
      approved: true,
      scope: "always",
    },
  );
  assertEquals(approvalAnswerOf({ action: "decline", content: { approve: true } }), {
    approved: false,
    reason: "the user declined",
  });
});

import { assertEquals } from "@std/assert";
import { ToolSetServer } from "../../../../src/core/mcp/mod.ts";
import { Client } from "../../../../src/core/mcp/mcp_sdk.ts";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { EVERYTHING, policyRouter, ran } from "../../policy/_policy_fixture.ts";

async function session(scope: unknown) {
  const router = policyRouter({ policy: { ask: ["deploy"] } });
  const server = new ToolSetServer(await router.expose({ ...EVERYTHING, userId: "alice" }));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const asked: Record<string, unknown>[] = [];
  const client = new Client({ name: "test", version: "1.0.0" }, {
    capabilities: { elicitation: { form: {} } },
  });
  client.setRequestHandler("elicitation/create", (request) => {
    asked.push(request.params);
    return { action: "accept", content: { approve: true, scope } } as never;
  });
  await client.connect(clientSide);
  return { client, server, asked, router };
}

Deno.test("serve's approval form offers once, session and always; a session answer asks once", async () => {
  const { client, server, asked, router } = await session("session");
  try {
    ran.length = 0;
    for (const env of ["prod", "prod-eu", "prod-us"]) {
      await client.callTool({ name: "deploy", arguments: { env } });
    }
    assertEquals(asked.length, 1);
    assertEquals(ran.length, 3);
    const schema = asked[0].requestedSchema as {
      properties: Record<string, { enum?: string[]; default?: string }>;
    };
    assertEquals(schema.properties.scope.enum, ["once", "session", "always"]);
    assertEquals(schema.properties.scope.default, "once");
    assertEquals((await router.grants({ userId: "alice" })).map((grant) => grant.scope), [
      "session",
    ]);
  } finally {
    await client.close();
    await server.close();
  }
});

Deno.test("serve: a scope the form did not offer approves that call only", async () => {
  const { client, server, asked, router } = await session("forever");
  try {
    ran.length = 0;
    await client.callTool({ name: "deploy", arguments: { env: "prod" } });
    await client.callTool({ name: "deploy", arguments: { env: "prod" } });
    assertEquals([asked.length, ran.length], [2, 2]);
    assertEquals(await router.grants(), []);
  } finally {
    await client.close();
    await server.close();
  }
});

/**
 * `mcpHttpHandler` serves both MCP eras on one endpoint: a client of the 2026-07-28 revision
 * (no `initialize`, no session) and 2025 clients (sessions as before), each with the tool set of
 * its own bearer token's user.
 *
 * @module
 */
import { assert, assertEquals, assertMatch } from "@std/assert";
import { z } from "zod";
import { defineTool, ToolRouter } from "../../../../mod.ts";
import { type McpHttpHandler, mcpHttpHandler } from "../../../../src/core/mcp/mod.ts";
import { Client, StreamableHTTPClientTransport } from "../../../../src/core/mcp/mcp_sdk.ts";

const whoami = defineTool({
  name: "whoami",
  description: "The user of the request",
  input: z.object({}),
  run: (_args, ctx) => ctx.userId ?? "nobody",
});
const secret = defineTool({
  name: "secret",
  description: "Only alice's tool set holds it",
  input: z.object({}),
  run: () => "alice's secret",
});
const router = new ToolRouter({ functions: [whoami, secret] });
const provider = (request: { userId?: string }) =>
  router.expose({
    functions: request.userId === "alice" ? ["whoami", "secret"] : ["whoami"],
    userId: request.userId,
  });
const TOKENS = { "tok-alice": "alice", "tok-bob": "bob" };

type Era = "modern" | "auto" | "legacy";

/** Every HTTP exchange of a client: the request's method and the response's headers. */
interface Seen {
  methods: string[];
  sessionIds: string[];
}

async function connect(
  handler: McpHttpHandler,
  options: { era: Era; token?: string; elicit?: (params: Record<string, unknown>) => unknown },
): Promise<{ client: Client; seen: Seen }> {
  const seen: Seen = { methods: [], sessionIds: [] };
  const transport = new StreamableHTTPClientTransport(new URL("http://127.0.0.1:8787/mcp"), {
    fetch: async (url: string | URL, init?: RequestInit) => {
      const request = new Request(url, init);
      if (request.method === "POST") {
        const body = await request.clone().json().catch(() => undefined);
        if (typeof body?.method === "string") seen.methods.push(body.method);
      }
      const response = await handler(request);
      const id = response.headers.get("mcp-session-id");
      if (id !== null) seen.sessionIds.push(id);
      return response;
    },
    requestInit: options.token === undefined
      ? {}
      : { headers: { authorization: `Bearer ${options.token}` } },
  });
  const client = new Client(
    { name: "test", version: "1.0.0" },
    {
      capabilities: options.elicit === undefined ? {} : { elicitation: { form: {}, url: {} } },
      versionNegotiation: {
        mode: options.era === "modern"
          ? { pin: "2026-07-28" }
          : options.era === "auto"
          ? "auto"
          : "legacy",
      },
    },
  );
  if (options.elicit !== undefined) {
    const elicit = options.elicit;
    client.setRequestHandler("elicitation/create", (request) => elicit(request.params) as never);
  }
  await client.connect(transport);
  return { client, seen };
}

function text(result: unknown): string {
  return (result as { content: { text: string }[] }).content[0].text;
}

Deno.test("a client pinned to 2026-07-28 is served without initialize and without a session", async () => {
  const handler = mcpHttpHandler({ tools: provider });
  const { client, seen } = await connect(handler, { era: "modern" });
  const { tools } = await client.listTools();
  assertEquals(tools.map((tool) => tool.name), ["whoami"]);
  assertEquals(text(await client.callTool({ name: "whoami", arguments: {} })), "nobody");
  // The client really spoke the modern revision: it discovered, and never initialized.
  assertEquals(client.getNegotiatedProtocolVersion(), "2026-07-28");
  assertEquals(client.getProtocolEra(), "modern");
  assert(seen.methods.includes("server/discover"), seen.methods.join(","));
  assert(!seen.methods.includes("initialize"), seen.methods.join(","));
  assertEquals(seen.sessionIds, []);
  assertEquals(handler.sessionCount, 0);
  await client.close();
  await handler.close();
});

for (const era of ["modern", "auto", "legacy"] as const) {
  Deno.test(`two users in the ${era} era each get their own token's tool set`, async () => {
    const handler = mcpHttpHandler({ tools: provider, tokens: TOKENS });
    const alice = await connect(handler, { era, token: "tok-alice" });
    const bob = await connect(handler, { era, token: "tok-bob" });
    assertEquals(text(await alice.client.callTool({ name: "whoami", arguments: {} })), "alice");
    assertEquals(text(await bob.client.callTool({ name: "whoami", arguments: {} })), "bob");
    assertEquals(
      (await bob.client.listTools()).tools.map((tool) => tool.name),
      ["whoami"],
    );
    // Bob calls alice's tool by name: the attack reaches the server and runs nothing.
    const stolen = await bob.client.callTool({ name: "secret", arguments: {} });
    assertEquals(stolen.isError, true);
    assertMatch(text(stolen), /Unknown tool/);
    assertEquals(
      text(await alice.client.callTool({ name: "secret", arguments: {} })),
      "alice's secret",
    );
    assertEquals(alice.client.getProtocolEra(), era === "legacy" ? "legacy" : "modern");
    if (era === "legacy") {
      assertEquals(alice.seen.methods[0], "initialize");
      assertEquals(handler.sessionCount, 2);
    } else {
      assert(!alice.seen.methods.includes("initialize"));
      assertEquals(alice.seen.sessionIds, []);
      assertEquals(handler.sessionCount, 0);
    }
    await alice.client.close();
    await bob.client.close();
    await handler.close();
  });
}

Deno.test("a 2026-07-28 request without a known bearer token gets 401 and runs nothing", async () => {
  const handler = mcpHttpHandler({ tools: provider, tokens: TOKENS });
  let failed = false;
  try {
    await connect(handler, { era: "modern", token: "tok-mallory" });
  } catch {
    failed = true;
  }
  assert(failed);
  const raw = await handler(
    new Request("http://127.0.0.1:8787/mcp", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: {
          name: "secret",
          arguments: {},
          _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" },
        },
      }),
    }),
  );
  assertEquals(raw.status, 401);
  await raw.body?.cancel();
  await handler.close();
});

Deno.test("a 2026-07-28 listen stream hears its own user's tool-list changes, never another's", async () => {
  const handler = mcpHttpHandler({ tools: provider, tokens: TOKENS });
  const changed: string[] = [];
  const listening = await Promise.all(["tok-alice", "tok-bob"].map(async (token) => {
    const { client } = await connect(handler, { era: "modern", token });
    client.setNotificationHandler("notifications/tools/list_changed", () => {
      changed.push(token);
    });
    const subscription = await client.listen({ toolsListChanged: true });
    return { client, subscription };
  }));
  await handler.notifyToolListChanged("alice");
  await new Promise((resolve) => setTimeout(resolve, 50));
  assertEquals(changed, ["tok-alice"]);
  await handler.notifyToolListChanged();
  await new Promise((resolve) => setTimeout(resolve, 50));
  assertEquals(changed.sort(), ["tok-alice", "tok-alice", "tok-bob"]);
  for (const { client, subscription } of listening) {
    await subscription.close();
    await client.close();
  }
  await handler.close();
});

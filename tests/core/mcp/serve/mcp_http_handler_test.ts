import { assertEquals, assertMatch, assertRejects, assertThrows } from "@std/assert";
import { z } from "zod";
import { defineTool, ToolRouter } from "../../../../mod.ts";
import { type McpHttpHandler, mcpHttpHandler } from "../../../../src/core/mcp/mod.ts";
import { Client, StreamableHTTPClientTransport } from "../../../../src/core/mcp/mcp_sdk.ts";
import { initializeRequest } from "../../../_helpers/initialize_request.ts";
import { modernToolCallRequest } from "../../../_helpers/modern_tool_call_request.ts";

const whoami = defineTool({
  name: "whoami",
  description: "The user of the request",
  input: z.object({}),
  run: (_args, ctx) => ctx.userId ?? "nobody",
});
const hidden = defineTool({
  name: "hidden",
  description: "Registered, never exposed",
  input: z.object({}),
  run: () => "leaked",
});
const router = new ToolRouter({ functions: [whoami, hidden] });
const provider = (request: { userId?: string }) =>
  router.expose({ functions: ["whoami"], userId: request.userId });

/** An SDK client whose fetch calls the handler directly: no network, no permissions. */
async function connectClient(
  handler: McpHttpHandler,
  headers: Record<string, string> = {},
): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL("http://127.0.0.1:8787/mcp"), {
    fetch: (url: string | URL, init?: RequestInit) => handler(new Request(url, init)),
    requestInit: { headers },
  });
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

Deno.test("mcpHttpHandler serves tools to an SDK client in stateful mode", async () => {
  const handler = mcpHttpHandler({ tools: provider });
  const client = await connectClient(handler);
  assertEquals(handler.sessionCount, 1);
  const { tools } = await client.listTools();
  assertEquals(tools.map((tool: { name: string }) => tool.name), ["whoami"]);
  const result = await client.callTool({ name: "whoami", arguments: {} });
  assertEquals(result.content, [{ type: "text", text: "nobody" }]);
  const refused = await client.callTool({ name: "hidden", arguments: {} });
  assertEquals(refused.isError, true);
  await client.close();
  await handler.close();
  assertEquals(handler.sessionCount, 0);
});

Deno.test("mcpHttpHandler serves tools in stateless mode and refuses GET there", async () => {
  const handler = mcpHttpHandler({ tools: await provider({}), stateless: true });
  const client = await connectClient(handler);
  const result = await client.callTool({ name: "whoami", arguments: {} });
  assertEquals(result.content, [{ type: "text", text: "nobody" }]);
  assertEquals(handler.sessionCount, 0);
  await client.close();
  const get = await handler(new Request("http://127.0.0.1/mcp"));
  assertEquals(get.status, 405);
  await get.body?.cancel();
  await handler.close();
});

Deno.test("mcpHttpHandler answers 403 to a foreign Host or Origin and accepts loopback ones", async () => {
  const handler = mcpHttpHandler({ tools: provider, stateless: true, jsonResponse: true });
  const cases: [string, Record<string, string>, number][] = [
    ["http://evil.example:8787/mcp", {}, 403],
    ["http://127.0.0.1:8787/mcp", { host: "evil.example.com" }, 403],
    ["http://127.0.0.1:8787/mcp", { origin: "http://evil.example.com" }, 403],
    ["http://127.0.0.1:8787/mcp", { origin: "null" }, 403],
    ["http://127.0.0.1:8787/mcp", { host: "localhost:8787", origin: "http://localhost:8787" }, 200],
    ["http://[::1]:9/mcp", { origin: "https://127.0.0.1" }, 200],
    ["http://127.0.0.1:8787/other", {}, 404],
  ];
  for (const [url, headers, status] of cases) {
    const response = await handler(initializeRequest(url, headers));
    assertEquals(response.status, status, `${url} ${JSON.stringify(headers)}`);
    await response.body?.cancel();
  }
  await handler.close();
});

Deno.test("mcpHttpHandler honours custom host and origin allowlists", async () => {
  const handler = mcpHttpHandler({
    tools: provider,
    stateless: true,
    jsonResponse: true,
    allowedHosts: ["mcp.example:443"],
    allowedOrigins: ["https://app.example"],
  });
  const ok = await handler(
    initializeRequest("https://mcp.example/mcp", { origin: "https://app.example:8443" }),
  );
  assertEquals(ok.status, 200);
  await ok.body?.cancel();
  const wrongPort = await handler(initializeRequest("http://mcp.example:8080/mcp"));
  assertEquals(wrongPort.status, 403);
  await wrongPort.body?.cancel();
  const loopback = await handler(initializeRequest("http://127.0.0.1/mcp"));
  assertEquals(loopback.status, 403);
  await loopback.body?.cancel();
});

Deno.test("mcpHttpHandler requires a known bearer token and takes the user from it", async () => {
  const handler = mcpHttpHandler({ tools: provider, tokens: { "tok-alice": "alice" } });
  const anonymous = await handler(initializeRequest("http://127.0.0.1/mcp"));
  assertEquals(anonymous.status, 401);
  assertMatch(anonymous.headers.get("www-authenticate") ?? "", /Bearer/);
  await anonymous.body?.cancel();
  await assertRejects(() => connectClient(handler, { authorization: "Bearer wrong" }));
  const client = await connectClient(handler, {
    authorization: "Bearer tok-alice",
    "x-user-id": "mallory",
  });
  const result = await client.callTool({ name: "whoami", arguments: {} });
  assertEquals(result.content, [{ type: "text", text: "alice" }]);
  await client.close();
  await handler.close();
});

Deno.test("mcpHttpHandler keeps each token's user on every request and refuses near misses", async () => {
  const handler = mcpHttpHandler({
    tools: provider,
    tokens: { "tok-alice": "alice", "tok-bob": "bob" },
  });
  // A 2026-07-28 call (no session): each request is authenticated on its own.
  const whoamiAs = async (token: string) => {
    const response = await handler(
      modernToolCallRequest("http://127.0.0.1/mcp", {
        token,
        params: { name: "whoami", arguments: {} },
      }),
    );
    if (response.status !== 200) {
      await response.body?.cancel();
      return response.status;
    }
    return (await response.json()).result.content[0].text;
  };
  const nearMisses = ["tok-alic", "tok-alicee", "tok-alicf", "TOK-ALICE", "tok-bo"];
  // Before and after each token was seen (and remembered): the same answers.
  for (let round = 0; round < 3; round++) {
    for (const miss of nearMisses) assertEquals(await whoamiAs(miss), 401, miss);
    assertEquals(await whoamiAs("tok-alice"), "alice");
    assertEquals(await whoamiAs("tok-bob"), "bob");
  }
  await handler.close();
});

Deno.test("mcpHttpHandler keeps a session to the user that opened it", async () => {
  const handler = mcpHttpHandler({
    tools: provider,
    jsonResponse: true,
    authenticate: (request) =>
      ({ "Bearer a": "alice", "Bearer b": "bob" })[request.headers.get("authorization") ?? ""],
  });
  const opened = await handler(
    initializeRequest("http://127.0.0.1/mcp", { authorization: "Bearer a" }),
  );
  assertEquals(opened.status, 200);
  await opened.body?.cancel();
  const sessionId = opened.headers.get("mcp-session-id") ?? "";
  const stolen = await handler(
    new Request("http://127.0.0.1/mcp", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: "Bearer b",
        "mcp-session-id": sessionId,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    }),
  );
  assertEquals(stolen.status, 404);
  await stolen.body?.cancel();
  await handler.close();
});

Deno.test("mcpHttpHandler rejects bad options with a clear error", () => {
  let message = "";
  try {
    mcpHttpHandler({ tools: provider, maxSessions: 0 });
  } catch (error) {
    message = (error as Error).message;
  }
  assertMatch(message, /"maxSessions" must be a positive number/);
});

Deno.test("mcpHttpHandler tells a user's open sessions that the tool list changed", async () => {
  const handler = mcpHttpHandler({
    tools: provider,
    authenticate: (request) =>
      ({ "Bearer a": "alice", "Bearer b": "bob" })[request.headers.get("authorization") ?? ""],
  });
  const changed: string[] = [];
  const clients = await Promise.all(["a", "b"].map(async (token) => {
    const client = await connectClient(handler, { authorization: `Bearer ${token}` });
    client.setNotificationHandler("notifications/tools/list_changed", () => {
      changed.push(token);
    });
    return client;
  }));
  await handler.notifyToolListChanged("alice");
  await new Promise((resolve) => setTimeout(resolve, 20));
  assertEquals(changed, ["a"]);
  await handler.notifyToolListChanged();
  await new Promise((resolve) => setTimeout(resolve, 20));
  assertEquals(changed.sort(), ["a", "a", "b"]);
  await Promise.all(clients.map((client) => client.close()));
  await handler.close();
});

Deno.test("mcpHttpHandler lets browser pages of an allowed origin read responses (CORS)", async () => {
  const handler = mcpHttpHandler({ tools: provider, jsonResponse: true });
  const preflight = await handler(
    new Request("http://127.0.0.1:8787/mcp", {
      method: "OPTIONS",
      headers: { origin: "http://localhost:6274", "access-control-request-method": "POST" },
    }),
  );
  assertEquals(preflight.status, 204);
  assertEquals(preflight.headers.get("access-control-allow-origin"), "http://localhost:6274");
  assertMatch(preflight.headers.get("access-control-allow-headers") ?? "", /mcp-session-id/);
  const opened = await handler(
    initializeRequest("http://127.0.0.1:8787/mcp", { origin: "http://localhost:6274" }),
  );
  assertEquals(opened.status, 200);
  assertEquals(opened.headers.get("access-control-allow-origin"), "http://localhost:6274");
  assertMatch(opened.headers.get("access-control-expose-headers") ?? "", /mcp-session-id/);
  await opened.body?.cancel();
  const plain = await handler(initializeRequest("http://127.0.0.1:8787/mcp"));
  assertEquals(plain.headers.get("access-control-allow-origin"), null);
  await plain.body?.cancel();
  const foreign = await handler(
    new Request("http://127.0.0.1:8787/mcp", {
      method: "OPTIONS",
      headers: { origin: "http://evil.example" },
    }),
  );
  assertEquals(foreign.status, 403);
  assertEquals(foreign.headers.get("access-control-allow-origin"), null);
  await foreign.body?.cancel();
  await handler.close();
});

Deno.test("mcpHttpHandler streams progress and the result in stateless mode", async () => {
  const steps = defineTool({
    name: "steps",
    description: "Reports three steps",
    input: z.object({}),
    run: async (_args, ctx) => {
      for (const progress of [1, 2, 3]) {
        ctx.onProgress?.({ progress, total: 3 });
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return "done";
    },
  });
  const tools = await new ToolRouter({ functions: [steps] }).expose({ functions: ["steps"] });
  const handler = mcpHttpHandler({ tools, stateless: true });
  const client = await connectClient(handler);
  const seen: number[] = [];
  const result = await client.callTool({ name: "steps", arguments: {} }, {
    onprogress: (progress: { progress: number }) => seen.push(progress.progress),
  });
  assertEquals(result.content, [{ type: "text", text: "done" }]);
  assertEquals(seen, [1, 2, 3]);
  await client.close();
  await handler.close();
});

Deno.test("mcpHttpHandler refuses a maxBodyBytes that is not a positive number", () => {
  assertThrows(
    () => mcpHttpHandler({ tools: provider, maxBodyBytes: 0 }),
    RangeError,
    "maxBodyBytes",
  );
});

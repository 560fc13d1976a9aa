import { assert, assertEquals } from "@std/assert";
import { z } from "zod";
import { defineTool, ToolRouter } from "../../../../mod.ts";
import { mcpHttpHandler } from "../../../../src/core/mcp/mod.ts";
import { INITIALIZE_MESSAGE } from "../../../_helpers/initialize_request.ts";

// A second user, and a hostile client, of one `serve` against `McpSessions` now that it answers
// both stateless POSTs and stateful POSTs without a session through one `#answerFresh`.

const calls: string[] = [];
const whoami = defineTool({
  name: "whoami",
  description: "The user of the request",
  input: z.object({}),
  run: (_args, ctx) => {
    calls.push(ctx.userId ?? "nobody");
    return ctx.userId ?? "nobody";
  },
});
const router = new ToolRouter({ functions: [whoami] });
const provider = (request: { userId?: string }) =>
  router.expose({ functions: ["whoami"], userId: request.userId });
const URL_ = "http://127.0.0.1:8787/mcp";
const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};
const tokens = { "alice-token": "alice", "bob-token": "bob" };

function post(token: string, body: unknown, session?: string): Request {
  return new Request(URL_, {
    method: "POST",
    headers: {
      ...HEADERS,
      authorization: `Bearer ${token}`,
      "mcp-protocol-version": "2025-06-18",
      ...(session === undefined ? {} : { "mcp-session-id": session }),
    },
    body: JSON.stringify(body),
  });
}
const callWhoami = {
  jsonrpc: "2.0",
  id: 2,
  method: "tools/call",
  params: { name: "whoami", arguments: {} },
};
const ping = { jsonrpc: "2.0", id: 3, method: "ping" };

Deno.test("attack: a second user replays a session id and posts calls without a session in stateful mode", async () => {
  calls.length = 0;
  const handler = mcpHttpHandler({
    tools: provider,
    tokens,
    jsonResponse: true,
    maxSessions: 4,
    maxSessionsPerUser: 2,
  });
  const opened = await handler(post("alice-token", INITIALIZE_MESSAGE));
  await opened.text();
  const alice = opened.headers.get("mcp-session-id")!;
  assert(alice !== null);
  // Bob replays Alice's session id: not found, and nothing ran.
  const replayed = await handler(post("bob-token", callWhoami, alice));
  assertEquals(replayed.status, 404, await replayed.text());
  // Bob posts calls with no session, many times: each refused, none keeps a server or a session.
  for (let i = 0; i < 20; i++) {
    const bare = await handler(post("bob-token", callWhoami));
    assertEquals(bare.status, 400, await bare.text());
  }
  assertEquals(calls, [], "no call ran");
  assertEquals(handler.sessionCount, 1);
  // Alice's session is alive and hers.
  const mine = await handler(post("alice-token", callWhoami, alice));
  assertEquals(mine.status, 200);
  assert((await mine.text()).includes("alice"));
  assertEquals(calls, ["alice"]);
  await handler.close();
});

Deno.test("attack: in stateless mode a session id is meaningless, nothing is kept and limits are not spent", async () => {
  calls.length = 0;
  const handler = mcpHttpHandler({
    tools: provider,
    tokens,
    jsonResponse: true,
    stateless: true,
    maxSessions: 1,
    maxSessionsPerUser: 1,
  });
  // Alice floods the stateless server; Bob still gets his own answers, as himself.
  for (let i = 0; i < 10; i++) {
    const flood = await handler(post("alice-token", ping, "made-up-session"));
    assertEquals(flood.status, 200, await flood.text());
  }
  const bob = await handler(post("bob-token", callWhoami, "made-up-session"));
  assertEquals(bob.status, 200);
  const text = await bob.text();
  assert(text.includes("bob") && !text.includes("alice"), text);
  assertEquals(calls, ["bob"]);
  assertEquals(handler.sessionCount, 0, "a stateless POST keeps no session");
  const get = await handler(
    new Request(URL_, { headers: { ...HEADERS, authorization: "Bearer bob-token" } }),
  );
  assertEquals(get.status, 405);
  await get.body?.cancel();
  const opened = await handler(post("bob-token", INITIALIZE_MESSAGE));
  await opened.text();
  assertEquals(opened.headers.get("mcp-session-id"), null, "an initialize opens no session");
  assertEquals(handler.sessionCount, 0);
  await handler.close();
});

Deno.test("attack: a client's POST without a session does not close its own user's sessions", async () => {
  calls.length = 0;
  const handler = mcpHttpHandler({
    tools: provider,
    tokens,
    jsonResponse: true,
    maxSessions: 4,
    maxSessionsPerUser: 1,
  });
  const opened = await handler(post("alice-token", INITIALIZE_MESSAGE));
  await opened.text();
  const alice = opened.headers.get("mcp-session-id")!;
  // A second client of Alice's sends a call with no session: it is refused...
  const bare = await handler(post("alice-token", callWhoami));
  assertEquals(bare.status, 400, await bare.text());
  // ...and Alice's one session, at her limit, is still open.
  const mine = await handler(post("alice-token", ping, alice));
  assertEquals(mine.status, 200, await mine.text());
  await handler.close();
});

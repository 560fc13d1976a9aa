import { assert, assertEquals, assertMatch } from "@std/assert";
import { z } from "zod";
import { defineTool, ToolRouter } from "../../../../mod.ts";
import { mcpHttpHandler } from "../../../../src/core/mcp/mod.ts";
import { initializeRequest } from "../../../_helpers/initialize_request.ts";
import { whoamiProvider as provider } from "./_whoami_provider.ts";

const URL_ = "http://127.0.0.1:8787/mcp";
const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

function initialize(token: string): Request {
  return initializeRequest(URL_, { authorization: `Bearer ${token}` });
}

function ping(token: string, session: string): Request {
  return new Request(URL_, {
    method: "POST",
    headers: {
      ...HEADERS,
      authorization: `Bearer ${token}`,
      "mcp-session-id": session,
      "mcp-protocol-version": "2025-06-18",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }),
  });
}

async function open(handler: ReturnType<typeof mcpHttpHandler>, token: string) {
  const response = await handler(initialize(token));
  const text = await response.text();
  return { status: response.status, session: response.headers.get("mcp-session-id"), text };
}

const tokens = { "alice-token": "alice", "bob-token": "bob", "carol-token": "carol" };

Deno.test("mcpHttpHandler: one user's many sessions never evict another user's (RT-4)", async () => {
  const handler = mcpHttpHandler({
    tools: provider,
    tokens,
    jsonResponse: true,
    maxSessions: 50,
    maxSessionsPerUser: 10,
  });
  const bob = await open(handler, "bob-token");
  assertEquals(bob.status, 200);
  let opened = 0;
  for (let i = 0; i < 110; i++) {
    const alice = await open(handler, "alice-token");
    assertEquals(alice.status, 200, alice.text);
    opened++;
  }
  assertEquals(opened, 110, "the attack ran");
  assertEquals(handler.sessionCount, 11, "alice holds her 10, bob his 1");
  const alive = await handler(ping("bob-token", bob.session!));
  assertEquals(alive.status, 200, "bob's session is alive");
  await alive.body?.cancel();
  await handler.close();
});

Deno.test("mcpHttpHandler: a full server closes only the same user's oldest session, else answers 503", async () => {
  const handler = mcpHttpHandler({
    tools: provider,
    tokens,
    jsonResponse: true,
    maxSessions: 4,
    maxSessionsPerUser: 3,
  });
  const alice = [await open(handler, "alice-token"), await open(handler, "alice-token")];
  const bob = [await open(handler, "bob-token"), await open(handler, "bob-token")];
  assertEquals(handler.sessionCount, 4);
  // Full: carol has no session to give up, so she gets a clear error and nobody is evicted.
  const carol = await open(handler, "carol-token");
  assertEquals(carol.status, 503);
  assertMatch(carol.text, /Too many sessions/);
  assertEquals(handler.sessionCount, 4);
  // Full: a third session of alice closes alice's oldest, not bob's.
  const third = await open(handler, "alice-token");
  assertEquals(third.status, 200);
  const gone = await handler(ping("alice-token", alice[0].session!));
  assertEquals(gone.status, 404);
  assertMatch(await gone.text(), /closed because its user opened more sessions than allowed/);
  for (const { session } of [alice[1], bob[0], bob[1], third]) {
    const token = bob.some((b) => b.session === session) ? "bob-token" : "alice-token";
    const response = await handler(ping(token, session!));
    assertEquals(response.status, 200);
    await response.body?.cancel();
  }
  await handler.close();
});

Deno.test("mcpHttpHandler: concurrent initializes cannot pass the per-user limit", async () => {
  const handler = mcpHttpHandler({
    tools: provider,
    tokens,
    jsonResponse: true,
    maxSessions: 100,
    maxSessionsPerUser: 5,
  });
  const results = await Promise.all(
    Array.from({ length: 40 }, () => open(handler, "alice-token")),
  );
  assert(results.every((r) => r.status === 200 || r.status === 503));
  assert(
    handler.sessionCount >= 1 && handler.sessionCount <= 5,
    `${handler.sessionCount} sessions`,
  );
  await handler.close();
});

Deno.test("mcpHttpHandler rejects a maxSessionsPerUser that is not positive", () => {
  let message = "";
  try {
    mcpHttpHandler({ tools: provider, maxSessionsPerUser: 0 });
  } catch (error) {
    message = (error as Error).message;
  }
  assertMatch(message, /"maxSessionsPerUser" must be a positive number/);
});

Deno.test("mcpHttpHandler answers a JSON-RPC batch with a JSON-RPC error and runs none of it", async () => {
  let ran = 0;
  const marker = defineTool({
    name: "marker",
    description: "Counts its runs",
    input: z.object({}),
    run: () => String(++ran),
  });
  const router = new ToolRouter({ functions: [marker] });
  const tools = (request: { userId?: string }) =>
    router.expose({ functions: ["marker"], userId: request.userId });
  for (const stateless of [false, true]) {
    const handler = mcpHttpHandler({ tools, tokens, jsonResponse: true, stateless });
    const first = await open(handler, "alice-token");
    const headers = {
      ...HEADERS,
      authorization: "Bearer alice-token",
      "mcp-protocol-version": "2025-06-18",
      ...(stateless ? {} : { "mcp-session-id": first.session! }),
    };
    const call = {
      jsonrpc: "2.0",
      method: "tools/call",
      params: { name: "marker", arguments: {} },
    };
    const response = await handler(
      new Request(URL_, {
        method: "POST",
        headers,
        body: ` \n${JSON.stringify([{ ...call, id: 5 }, { ...call, id: 6 }])}`,
      }),
    );
    assertEquals(response.status, 400);
    // White-space padding (2 MiB, many chunks) cannot hide a batch either.
    const padded = await handler(
      new Request(URL_, {
        method: "POST",
        headers,
        body: " ".repeat(2 * 1024 * 1024) + JSON.stringify([{ ...call, id: 8 }]),
      }),
    );
    assertEquals(padded.status, 400);
    await padded.body?.cancel();
    const body = await response.json();
    assertEquals(body.error.code, -32600);
    assertMatch(body.error.message, /batches are not supported/);
    // The same call alone runs: the batch was refused, not the call.
    const single = await handler(
      new Request(URL_, { method: "POST", headers, body: JSON.stringify({ ...call, id: 7 }) }),
    );
    assertEquals(single.status, 200);
    await single.body?.cancel();
    await handler.close();
  }
  assertEquals(ran, 2, "only the two single calls ran");
});

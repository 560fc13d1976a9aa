import { assertEquals } from "@std/assert";
import { mcpHttpHandler } from "../../../../src/core/mcp/mod.ts";
import { whoamiProvider } from "./_whoami_provider.ts";

const LIST = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });

/** A 2025 tools/list with no token at all. */
function untokened(): Request {
  return new Request("http://127.0.0.1:8787/mcp", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-11-25",
    },
    body: LIST,
  });
}

/**
 * A JavaScript host's `authenticate` says "no such user" the way its lookup does: `null` (a
 * database's find), `false`, `""`; or it hands back an id that is not a string. Anything but a
 * string was taken as a user: the request passed authentication, and with no string id from it
 * ran as the handler's `userId` (or anonymously), so Mallory with no token at all got that
 * user's tools, grants and limits.
 */
for (const answer of [null, false, "", 42, {}]) {
  Deno.test(`attack: authenticate answering ${JSON.stringify(answer)} lets no request in`, async () => {
    const provided: (string | undefined)[] = [];
    let asked = 0;
    const handler = mcpHttpHandler({
      tools: (request) => (provided.push(request.userId), whoamiProvider(request)),
      authenticate: () => (asked++, answer as unknown as string),
      userId: "operator",
      stateless: true,
    });
    try {
      const response = await handler(untokened());
      await response.body?.cancel();
      // The attack ran: the request reached authenticate and got its odd answer.
      assertEquals(asked, 1);
      assertEquals(response.status, 401);
      assertEquals(provided, []);
    } finally {
      await handler.close();
    }
  });
}

Deno.test("authenticate answering a user id lets that user in", async () => {
  const provided: (string | undefined)[] = [];
  const handler = mcpHttpHandler({
    tools: (request) => (provided.push(request.userId), whoamiProvider(request)),
    authenticate: () => "alice",
    stateless: true,
  });
  try {
    const response = await handler(untokened());
    await response.body?.cancel();
    assertEquals(response.status, 200);
    assertEquals(provided, ["alice"]);
  } finally {
    await handler.close();
  }
});

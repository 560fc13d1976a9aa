import { assert, assertEquals, assertMatch, assertThrows } from "@std/assert";
import { z } from "zod";
import { defineTool, ToolRouter, type ToolSet } from "../../../../mod.ts";
import { mcpHttpHandler } from "../../../../src/core/mcp/mod.ts";
import { Client, StreamableHTTPClientTransport } from "../../../../src/core/mcp/mcp_sdk.ts";

const TOKENS = { "tok-alice": "alice", "tok-bob": "bob" };

/** A router whose `send` may run once a minute per user, and whose `whoami` names the set's user. */
function limitedRouter(): { ran: string[]; router: ToolRouter } {
  const ran: string[] = [];
  const send = defineTool({
    name: "send",
    description: "Sends",
    input: z.object({}),
    run: (_args, context) => {
      ran.push(context.userId ?? "nobody");
      return "sent";
    },
  });
  const whoami = defineTool({
    name: "whoami",
    description: "The user of the request",
    input: z.object({}),
    run: (_args, context) => context.userId ?? "nobody",
  });
  const router = new ToolRouter({
    functions: [send, whoami],
    policy: { limits: [{ match: "send", max: 1, windowMs: 60_000 }] },
  });
  return { ran, router };
}

async function connect(
  handler: (request: Request) => Promise<Response>,
  token: string,
  era: "2026-07-28" | "2025-11-25",
): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL("http://127.0.0.1:8787/mcp"), {
    fetch: (url: string | URL, init?: RequestInit) => handler(new Request(url, init)),
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "test", version: "1.0.0" }, {
    versionNegotiation: { mode: era === "2026-07-28" ? { pin: era } : "legacy" },
  });
  await client.connect(transport);
  return client;
}

async function call(client: Client, name: string): Promise<string> {
  try {
    const result = await client.callTool({ name, arguments: {} }) as {
      isError?: boolean;
      content: { text: string }[];
    };
    return result.isError ? `error: ${result.content[0].text}` : result.content[0].text;
  } catch (error) {
    return `refused: ${(error as Error).message}`;
  }
}

/**
 * Every governance key (a per-user limit's count, a grant, an approval's and a round's user, a
 * result handle's owner, a hook's `userId`) is the tool set's user, fixed at `expose`. A handler
 * that authenticates Alice and Bob but serves one set for both made them one principal: Mallory
 * (Alice's token) used up Bob's per-user limit, and an "always" she answered was Bob's grant.
 */
Deno.test("attack: a handler of several users over one fixed tool set is refused at creation", () => {
  const { router } = limitedRouter();
  const made = router.expose({ functions: ["send"] });
  for (const auth of [{ tokens: TOKENS }, { authenticate: () => "alice" }]) {
    assertThrows(
      () => mcpHttpHandler({ tools: made as unknown as ToolSet, ...auth }),
      TypeError,
      "one user's",
    );
  }
  // One user (or none) over a fixed set stays allowed: it is that user's set.
  mcpHttpHandler({ tools: made as unknown as ToolSet, tokens: { "tok-alice": "alice" } });
  mcpHttpHandler({ tools: made as unknown as ToolSet });
});

for (const era of ["2026-07-28", "2025-11-25"] as const) {
  Deno.test(`attack (${era}): a provider that hands Bob Alice's tool set runs nothing as Alice`, async () => {
    const { ran, router } = limitedRouter();
    // A host's provider that keeps the first set it made (keyed by something other than the user).
    let kept: Promise<ToolSet> | undefined;
    const handler = mcpHttpHandler({
      tools: (request) =>
        kept ??= router.expose({ functions: ["send", "whoami"], userId: request.userId }),
      tokens: TOKENS,
    });
    const alice = await connect(handler, "tok-alice", era);
    const bob = await connect(handler, "tok-bob", era);
    try {
      // Alice's set is made and kept; Mallory (Alice) spends her limit.
      assertEquals(await call(alice, "whoami"), "alice");
      assertEquals(await call(alice, "send"), "sent");
      // The attack ran: Bob's requests reached the handler and the provider gave him Alice's set.
      assertEquals((await kept)?.userId, "alice");
      const who = await call(bob, "whoami");
      const sent = await call(bob, "send");
      // Before: Bob ran as "alice", and his own limit was already spent by her.
      assert(who !== "alice", who);
      assertMatch(who, /another user/);
      assertMatch(sent, /another user/);
      assertEquals(ran, ["alice"]);
    } finally {
      await alice.close();
      await bob.close();
      await handler.close();
    }
  });
}

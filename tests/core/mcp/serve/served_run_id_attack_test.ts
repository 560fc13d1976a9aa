import { assertEquals, assertNotEquals } from "@std/assert";
import { servedRunId } from "../../../../src/core/mcp/serve/_served_run_id.ts";
import { defineTool, ToolRouter } from "../../../../mod.ts";
import { z } from "zod";
import { mcpHttpHandler } from "../../../../src/core/mcp/mod.ts";
import { Client, StreamableHTTPClientTransport } from "../../../../src/core/mcp/mcp_sdk.ts";

const META = { "toolroute/runId": "run-1" };

/** A router whose one tool, `pay`, may run twice per run across the whole router. */
function payingRouter(): { ran: string[]; router: ToolRouter } {
  const ran: string[] = [];
  const pay = defineTool({
    name: "pay",
    description: "Pays",
    input: z.object({}),
    run: (_args, context) => {
      ran.push(context.userId ?? "");
      return "paid";
    },
  });
  const router = new ToolRouter({
    functions: [pay],
    policy: { limits: [{ match: "pay", max: 2, per: "router" }] },
  });
  return { ran, router };
}

/**
 * A limit counted for the whole router (`per: "router"`) per run: a second user who names the
 * run another user named would spend that user's budget. A named run is its user's.
 */
Deno.test("a user who names another user's run does not spend that run's router-wide budget", async () => {
  const { ran, router } = payingRouter();
  const call = async (userId: string) => {
    const toolSet = await router.expose({ userId, functions: ["pay"] });
    const runId = servedRunId(META, undefined, { userId });
    return (await toolSet.call("pay", {}, { runId })).code ?? "ok";
  };
  // Bob names alice's run and calls until he is refused.
  assertEquals([await call("bob"), await call("bob"), await call("bob")], [
    "ok",
    "ok",
    "rate_limited",
  ]);
  // Alice's run of that name still has its budget; the limit does hold per run.
  assertEquals([await call("alice"), await call("alice"), await call("alice")], [
    "ok",
    "ok",
    "rate_limited",
  ]);
  assertEquals(ran, ["bob", "bob", "alice", "alice"]);
  assertNotEquals(
    servedRunId(META, undefined, { userId: "alice" }),
    servedRunId(META, undefined, { userId: "bob" }),
  );
  // A user id holding the separator cannot meet another user's run either.
  assertNotEquals(
    servedRunId({ "toolroute/runId": "b/run" }, undefined, { userId: "a" }),
    servedRunId({ "toolroute/runId": "run" }, undefined, { userId: "a/b" }),
  );
});

/**
 * The 2026-07-28 era has no session: a call that names no run counted in one run shared by every
 * user of `serve`, so one user spending a router-wide per-run budget refused every other user.
 */
Deno.test("a sessionless user who names no run does not spend another user's router-wide run budget", async () => {
  const { ran, router } = payingRouter();
  const handler = mcpHttpHandler({
    tools: (request) => router.expose({ functions: ["pay"], userId: request.userId }),
    tokens: { "tok-alice": "alice", "tok-bob": "bob" },
  });
  const connect = async (token: string) => {
    const transport = new StreamableHTTPClientTransport(new URL("http://127.0.0.1:8787/mcp"), {
      fetch: (url: string | URL, init?: RequestInit) => handler(new Request(url, init)),
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    const client = new Client({ name: "test", version: "1.0.0" }, {
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    });
    await client.connect(transport);
    return client;
  };
  const alice = await connect("tok-alice");
  const bob = await connect("tok-bob");
  const call = async (client: Client) => {
    const result = await client.callTool({ name: "pay", arguments: {} }) as {
      isError?: boolean;
      content: { text: string }[];
    };
    return result.isError ? "refused" : result.content[0].text;
  };
  try {
    // Both clients are sessionless (the attack's premise), and Alice spends her run's budget.
    assertEquals([alice.transport?.sessionId, bob.transport?.sessionId], [undefined, undefined]);
    assertEquals([await call(alice), await call(alice), await call(alice)], [
      "paid",
      "paid",
      "refused",
    ]);
    // Bob's own run still has its budget, and it holds for him too.
    assertEquals([await call(bob), await call(bob), await call(bob)], ["paid", "paid", "refused"]);
    assertEquals(ran, ["alice", "alice", "bob", "bob"]);
  } finally {
    await alice.close();
    await bob.close();
    await handler.close();
  }
});

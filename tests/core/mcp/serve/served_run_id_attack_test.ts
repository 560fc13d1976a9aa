import { assertEquals, assertNotEquals } from "@std/assert";
import { servedRunId } from "../../../../src/core/mcp/serve/_served_run_id.ts";
import { defineTool, ToolRouter } from "../../../../mod.ts";
import { z } from "zod";

const META = { "toolroute/runId": "run-1" };

/**
 * A limit counted for the whole router (`per: "router"`) per run: a second user who names the
 * run another user named would spend that user's budget. A named run is its user's.
 */
Deno.test("a user who names another user's run does not spend that run's router-wide budget", async () => {
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
